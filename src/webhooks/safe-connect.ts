import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { isAllowedPrivateHost, isPrivateAddress } from "../platform/net/unreachable-host.ts";

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

export class UnreachableAddressError extends Error {
  override readonly name = "UnreachableAddressError";
  readonly code = "EUNREACHABLEHOST";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the socket that resolves once and refuses private answers, so the address that
 * was checked is the address connected to: a name that re-resolves to 127.0.0.1 or
 * 169.254.169.254 between check and connect (DNS rebinding) has no second chance.
 */
export function guardedLookup(resolver: Resolver, refusePrivate: boolean) {
  return (hostname: string, options: { all?: boolean | undefined }, callback: LookupCallback) => {
    resolver(hostname)
      .then((addresses) => {
        const refused = refusePrivate
          ? addresses.find((entry) => isPrivateAddress(entry.address))
          : undefined;
        const first = addresses[0];
        if (refused || !first) {
          throw new UnreachableAddressError(
            `refusing to connect: ${hostname} resolves to ${refused?.address ?? "nothing"}, a private or reserved address`,
          );
        }
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ""));
  };
}

/** IP literals never reach a lookup, so they are checked here before any socket opens. */
export function refuseLiteralPrivateAddress(url: URL, allowedPrivateHosts: readonly string[]): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && isPrivateAddress(host) && !isAllowedPrivateHost(url, allowedPrivateHosts)) {
    throw new UnreachableAddressError(`refusing to connect to the private address ${host}`);
  }
}

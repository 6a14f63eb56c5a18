import { BlockList, isIPv4, isIPv6 } from "node:net";

/**
 * Addresses no merchant URL may point at: the spec's list (localhost, 127.0.0.1, 0.0.0.0,
 * 169.254.169.254, 10.*, 172.*, 192.168.*) widened to whole ranges, because 127.0.0.2 or
 * 169.254.170.2 reach the same places, plus their IPv6 equivalents.
 */
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  // The spec blocks every host starting with "172.", wider than RFC 1918's 172.16/12.
  ["172.0.0.0", 8],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["64:ff9b::", 96],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv6");
}

/** `::ffff:7f00:1` → `127.0.0.1`; anything else unchanged. */
function unmapIPv4(address: string): string {
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted?.[1]) return dotted[1];
  if (!mapped?.[1] || !mapped[2]) return address;
  const high = Number.parseInt(mapped[1], 16);
  const low = Number.parseInt(mapped[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** True for loopback, private, link-local, unique-local, CGNAT and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const plain = unmapIPv4(address.replace(/^\[|\]$/g, ""));
  if (isIPv4(plain)) return privateRanges.check(plain, "ipv4");
  if (isIPv6(plain)) return privateRanges.check(plain, "ipv6");
  return false;
}

function isPrivateName(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname.endsWith(".internal") ||
    hostname.endsWith(".local")
  );
}

export function isAllowedPrivateHost(url: URL, allowedPrivateHosts: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  return allowedPrivateHosts.includes(url.host.toLowerCase()) || allowedPrivateHosts.includes(hostname);
}

/**
 * Parses a merchant URL and answers null when it must not be used: not a valid http(s) URL,
 * or its host is unreachable by the rule of spec §4.2 (unless listed in ALLOWED_PRIVATE_HOSTS).
 * WHATWG parsing already turns numeric spellings (2130706433, 0x7f.1, 0177.0.0.1) into dotted form.
 */
export function reachableUrl(raw: string, allowedPrivateHosts: readonly string[]): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (isAllowedPrivateHost(url, allowedPrivateHosts)) return url;
  // A trailing dot names the same host ("localhost." is localhost).
  const hostname = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (hostname === "" || isPrivateName(hostname) || isPrivateAddress(hostname)) return null;
  return url;
}

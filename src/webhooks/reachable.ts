import { DomainError } from "../platform/errors/domain-error.ts";
import { reachableUrl } from "../platform/net/unreachable-host.ts";

/**
 * A URL webhooks may be sent to, or a 400 naming the unreachable-host rule: a URL that would never
 * be posted to is refused when it is set, not kept and left silent.
 */
export function deliverableUrl(raw: string, allowedPrivateHosts: readonly string[]): string {
  const url = reachableUrl(raw, allowedPrivateHosts);
  if (!url) {
    throw new DomainError(
      "INVALID_REQUEST",
      "url is refused by the unreachable-host rule: its host is private or unreachable (loopback, private, " +
        "link-local or reserved), or it is not a valid http(s) URL (ALLOWED_PRIVATE_HOSTS lists exceptions)",
    );
  }
  return url.href;
}

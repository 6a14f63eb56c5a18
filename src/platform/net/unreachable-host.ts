import ipaddr from "ipaddr.js";

const v4FromParts = (high: number, low: number) =>
  ipaddr.fromByteArray([high >> 8, high & 255, low >> 8, low & 255]) as ipaddr.IPv4;

/**
 * The interface lists localhost, 127.0.0.1, 0.0.0.0, 169.254.169.254, 10.*, 172.* and 192.168.*
 * (docs/api.md, "POST /api/v1/payments/create").
 * Read as "nothing but the public internet": only global unicast passes (ipaddr.js's ranges),
 * and every 172.* address is refused, as the interface's wording says.
 */
function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === "unicast" && address.octets[0] !== 172;
}

/** IPv6 forms that carry an IPv4 address inside; that address decides. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = parts;
  const range = address.range();
  // ::a.b.c.d (IPv4-compatible, deprecated), ::ffff:a.b.c.d, ::ffff:0:a.b.c.d, 64:ff9b::a.b.c.d
  if (parts.slice(0, 6).every((part) => part === 0)) return v4FromParts(p6, p7);
  if (range === "ipv4Mapped" || range === "rfc6145" || (range === "rfc6052" && p2 === 0)) {
    return v4FromParts(p6, p7);
  }
  return range === "6to4" ? v4FromParts(p1, p2) : null;
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const inner = embeddedIPv4(address);
  if (inner) return isPublicIPv4(inner);
  return address.range() === "unicast";
}

/**
 * False only for what ipaddr.js could not read as an address: no colon (IPv6) and a character
 * outside its IPv4 spellings (decimal, octal, hex). It reads a name such as "shop.example.com" by
 * throwing, and the stack each throw captures was 5 % of a create's CPU.
 */
const mayBeAddress = (text: string) => text.includes(":") || /^[0-9a-fx.]+$/i.test(text);

/**
 * True for every address that is not global unicast: loopback, private, link-local, unique-local,
 * CGNAT, multicast, broadcast, reserved and unspecified, in either family, including IPv4 hidden
 * in IPv6 (mapped, compatible, 6to4, NAT64) and the local-use NAT64 and Teredo prefixes.
 */
export function isPrivateAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, "");
  if (!mayBeAddress(plain) || !ipaddr.isValid(plain)) return false;
  const parsed = ipaddr.parse(plain);
  return parsed.kind() === "ipv4"
    ? !isPublicIPv4(parsed as ipaddr.IPv4)
    : !isPublicIPv6(parsed as ipaddr.IPv6);
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
 * or its host is unreachable by the create rule of docs/api.md (unless listed in ALLOWED_PRIVATE_HOSTS).
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

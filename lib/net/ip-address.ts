import ipaddr from "ipaddr.js";

/**
 * Which IP addresses a server-side request (the browser, webhooks, notifications, plugins) must
 * never reach: the machine itself, the private network around it, cloud metadata services and the
 * other special-purpose ranges. Parsing and range matching are ipaddr.js's; this file only holds
 * the table and the IPv6 forms that carry an IPv4 address inside them.
 */
export type TIpAddress = ipaddr.IPv4 | ipaddr.IPv6;
export type TAddressRange = [TIpAddress, number];
/** Named groups of ranges; the first group that holds an address names it. */
type TRangeList = Record<string, TAddressRange[]>;

const cidr = (text: string): TAddressRange => ipaddr.parseCIDR(text);

// Special-purpose IPv4 blocks (RFC 6890 and friends): none of them is a public web server.
// The first matching entry names the address, so the order only matters for the wording.
const IPV4_BLOCKED: TRangeList = {
  'a "this network" address': [cidr("0.0.0.0/8")],
  "a private address": [cidr("10.0.0.0/8"), cidr("172.16.0.0/12"), cidr("192.168.0.0/16")],
  "a carrier-grade NAT address (also used by cloud metadata services)": [cidr("100.64.0.0/10")],
  "a loopback address": [cidr("127.0.0.0/8")],
  "a link-local address (cloud metadata services live here)": [cidr("169.254.0.0/16")],
  "an IETF protocol address": [cidr("192.0.0.0/24")],
  "a documentation address": [cidr("192.0.2.0/24"), cidr("198.51.100.0/24"), cidr("203.0.113.0/24")],
  "a 6to4 relay address": [cidr("192.88.99.0/24")],
  "a benchmarking address": [cidr("198.18.0.0/15")],
  "a multicast address": [cidr("224.0.0.0/4")],
  "a reserved address": [cidr("240.0.0.0/4")],
};

// IPv6 forms whose last 32 bits are an IPv4 address that decides: mapped (::ffff:a.b.c.d),
// the deprecated compatible form (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d).
const IPV6_EMBEDDING_IPV4 = [cidr("::ffff:0:0/96"), cidr("::/96"), cidr("64:ff9b::/96")];

// Checked before the embedded forms: :: and ::1 lie inside ::/96 but are not IPv4 addresses.
const IPV6_BLOCKED_FIRST: TRangeList = {
  "the unspecified address": [cidr("::/128")],
  "a loopback address": [cidr("::1/128")],
};

const IPV6_BLOCKED: TRangeList = {
  "a private (unique local) address": [cidr("fc00::/7")],
  "a link-local address": [cidr("fe80::/10")],
  "a site-local address": [cidr("fec0::/10")],
  "a multicast address": [cidr("ff00::/8")],
};

// Only global unicast (2000::/3) is public, and not all of it.
const IPV6_GLOBAL_UNICAST = cidr("2000::/3");
const IPV6_BLOCKED_GLOBAL: TRangeList = {
  "a documentation address": [cidr("2001:db8::/32"), cidr("3fff::/20")],
  "a Teredo tunnel address": [cidr("2001::/32")],
  "a 6to4 address": [cidr("2002::/16")],
};

const PUBLIC = "public";

/**
 * Reads an address as URLs, DNS answers and allow-lists write it: dotted-quad IPv4, or IPv6 (in
 * brackets or not, with or without a zone id). Other IPv4 spellings (0x7f.1, 2130706433) are
 * undefined here: the URL parser has already turned them into dotted quads.
 */
export function parseIpAddress(text: string): TIpAddress | undefined {
  const address = text.trim().replace(/^\[(.*)\]$/, "$1");
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address);
  if (address.includes(":") && ipaddr.IPv6.isValid(address)) return ipaddr.IPv6.parse(address);
  return undefined;
}

/** A CIDR range such as 10.1.0.0/16 or fd00::/8, or undefined when it is not one. */
export function parseAddressRange(text: string): TAddressRange | undefined {
  const trimmed = text.trim();
  return ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed) || (trimmed.includes(":") && ipaddr.IPv6.isValidCIDR(trimmed)) ? ipaddr.parseCIDR(trimmed) : undefined;
}

/** An IPv4-mapped IPv6 address is the IPv4 host it maps; everything else stays as it is. */
function unmapped(address: TIpAddress): TIpAddress {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

export function addressInRange(address: TIpAddress, range: TAddressRange): boolean {
  const plain = unmapped(address);
  return plain.kind() === range[0].kind() && plain.match(range);
}

function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  return ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
}

/** Why an address must not be reached, or undefined for a public one. */
export function blockedAddressKind(text: string): string | undefined {
  const address = parseIpAddress(text);
  if (!address) return "not an IP address";
  const name = (ranges: TRangeList) => ipaddr.subnetMatch(address, ranges, PUBLIC);
  if (address.kind() === "ipv4") {
    const kind = name(IPV4_BLOCKED);
    return kind === PUBLIC ? undefined : kind;
  }
  const v6 = address as ipaddr.IPv6;
  const first = name(IPV6_BLOCKED_FIRST);
  if (first !== PUBLIC) return first;
  if (IPV6_EMBEDDING_IPV4.some((range) => v6.match(range))) return blockedAddressKind(embeddedIpv4(v6).toString());
  const special = name(IPV6_BLOCKED);
  if (special !== PUBLIC) return special;
  if (!v6.match(IPV6_GLOBAL_UNICAST)) return "a reserved address";
  const global = name(IPV6_BLOCKED_GLOBAL);
  return global === PUBLIC ? undefined : global;
}

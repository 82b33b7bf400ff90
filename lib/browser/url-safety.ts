import { lookup } from "node:dns/promises";
import net from "node:net";

/**
 * The SSRF guard of the browser worker. A page the agent opens must never reach the machine it
 * runs on, the private network around it or a cloud metadata service: only http(s) URLs are
 * opened, and every host must resolve to public addresses only, unless an administrator put the
 * host on `browser.allowedPrivateHosts` in xclaw.yaml. The worker applies it three times: to the
 * URL before navigating, to every request a page makes (route interception), and in the egress
 * proxy that every connection of the browser goes through, which connects to the very address it
 * checked (so redirects and DNS rebinding cannot slip past).
 */
export type TUrlVerdict = { ok: true; url: URL; host: string; port: number; allowListed: boolean } | { ok: false; reason: string; unresolved?: boolean };
/** `unresolved`: DNS had no answer (not a refusal; the request just cannot go anywhere). */
export type TAddressVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string; unresolved?: boolean };

type TRange = { bits: number[]; prefix: number; kind: string };

export type TAllowEntry = { host: string; port?: number } | { range: TRange };

const ALLOWED_PROTOCOLS = new Set(["http:", "https:"]);

// Special-purpose IPv4 blocks (RFC 6890 and friends): none of them is a public web server.
const IPV4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "a \"this network\" address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a carrier-grade NAT address (also used by cloud metadata services)"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address (cloud metadata services live here)"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a 6to4 relay address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

/** Parses dotted-quad IPv4 into four octets; anything else is undefined. */
export function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : NaN));
  return octets.every((octet) => Number.isInteger(octet) && octet <= 255) ? octets : undefined;
}

/** Parses IPv6 (with ::, an embedded dotted quad, or a zone id) into eight 16-bit groups. */
export function parseIpv6(text: string): number[] | undefined {
  let address = text.replace(/^\[|\]$/g, "");
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  if (!net.isIPv6(address)) return undefined;
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(":");
  const last = address.slice(lastColon + 1);
  if (last.includes(".")) {
    const octets = parseIpv4(last);
    if (!octets) return undefined;
    tail = [(octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!];
    address = address.slice(0, lastColon + 1);
    if (!address.endsWith("::")) address = address.slice(0, -1);
  }
  const halves = address.split("::");
  const toGroups = (part: string) => (part ? part.split(":").filter(Boolean).map((group) => parseInt(group, 16)) : []);
  const head = toGroups(halves[0] ?? "");
  const rest = halves.length > 1 ? toGroups(halves[1] ?? "") : [];
  const missing = 8 - tail.length - head.length - rest.length;
  if (halves.length === 1 && missing !== 0) return undefined;
  const groups = [...head, ...new Array(Math.max(0, missing)).fill(0), ...rest, ...tail];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

function bitsOf(values: number[], width: number): number[] {
  return values.flatMap((value) => Array.from({ length: width }, (_, index) => (value >> (width - 1 - index)) & 1));
}

function inRange(bits: number[], range: TRange): boolean {
  if (bits.length !== range.bits.length) return false;
  for (let index = 0; index < range.prefix; index++) if (bits[index] !== range.bits[index]) return false;
  return true;
}

function ipv4Range(base: string, prefix: number, kind: string): TRange {
  return { bits: bitsOf(parseIpv4(base)!, 8), prefix, kind };
}

const IPV4_RANGES = IPV4_BLOCKED.map(([base, prefix, kind]) => ipv4Range(base, prefix, kind));

/**
 * Why an address must not be reached, or undefined for a public one. IPv6 is allowed only in
 * global unicast (2000::/3) minus documentation, Teredo and 6to4; IPv4-mapped, IPv4-compatible and
 * NAT64 addresses are judged by the IPv4 address inside them.
 */
export function blockedAddressKind(address: string): string | undefined {
  const v4 = parseIpv4(address);
  if (v4) return IPV4_RANGES.find((range) => inRange(bitsOf(v4, 8), range))?.kind;
  const v6 = parseIpv6(address);
  if (!v6) return "not an IP address";
  const [g0, g1, g2, g3, g4, g5, g6, g7] = v6 as [number, number, number, number, number, number, number, number];
  const embedded = `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  if (v6.every((group) => group === 0)) return "the unspecified address";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return "a loopback address";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return blockedAddressKind(embedded);
  // 64:ff9b::a.b.c.d (NAT64)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return blockedAddressKind(embedded);
  if ((g0 & 0xfe00) === 0xfc00) return "a private (unique local) address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address";
  if ((g0 & 0xe000) !== 0x2000) return "a reserved address";
  if (g0 === 0x2001 && g1 === 0x0db8) return "a documentation address";
  if (g0 === 0x2001 && g1 === 0) return "a Teredo tunnel address";
  if (g0 === 0x2002) return "a 6to4 address";
  return undefined;
}

function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

/**
 * Parses `browser.allowedPrivateHosts`: `host`, `host:port`, `[v6]:port`, or a CIDR range of
 * addresses (`10.1.0.0/16`). Throws on an entry it cannot read, so a typo fails at start.
 */
export function parseAllowList(entries: readonly string[]): TAllowEntry[] {
  return entries.map((raw) => {
    const entry = raw.trim().toLowerCase();
    const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const [, base, prefixText] = cidr;
      const prefix = Number(prefixText);
      const v4 = parseIpv4(base!);
      if (v4 && prefix <= 32) return { range: { bits: bitsOf(v4, 8), prefix, kind: "allowed" } };
      const v6 = parseIpv6(base!);
      if (v6 && prefix <= 128) return { range: { bits: bitsOf(v6, 16), prefix, kind: "allowed" } };
      throw new Error(`browser.allowedPrivateHosts: "${raw}" is not a valid address range`);
    }
    let host: string | undefined;
    let portText: string | undefined;
    const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(entry);
    const plain = /^([a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    // A bare IPv6 address has colons of its own; only the bracketed form can carry a port.
    if (bracketed && net.isIPv6(bracketed[1]!)) [, host, portText] = bracketed;
    else if (net.isIPv6(entry)) host = entry;
    else if (plain) [, host, portText] = plain;
    if (!host) throw new Error(`browser.allowedPrivateHosts: "${raw}" is not a host, host:port or address range`);
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && (port < 1 || port > 65_535)) throw new Error(`browser.allowedPrivateHosts: "${raw}" has an invalid port`);
    return { host: normalizeHost(host), port };
  });
}

function defaultPort(protocol: string): number {
  return protocol === "https:" || protocol === "wss:" ? 443 : 80;
}

function hostAllowed(allowList: TAllowEntry[], host: string, port: number): boolean {
  return allowList.some((entry) => "host" in entry && entry.host === host && (entry.port === undefined || entry.port === port));
}

function addressAllowed(allowList: TAllowEntry[], address: string): boolean {
  const v4 = parseIpv4(address);
  const bits = v4 ? bitsOf(v4, 8) : parseIpv6(address) ? bitsOf(parseIpv6(address)!, 16) : undefined;
  return bits !== undefined && allowList.some((entry) => "range" in entry && inRange(bits, entry.range));
}

/** What the agent typed as a URL: "example.com/docs" and "example.com:8080" mean https://…; real schemes are kept (and judged). */
export function navigationUrl(raw: string): string {
  const trimmed = raw.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[^:/]+:\d+(\/|$)/.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/** Checks what can be known without DNS: the scheme, and a host that is an address or a loopback name. */
export function checkUrlSyntax(raw: string, allowList: TAllowEntry[], options: { protocols?: ReadonlySet<string> } = {}): TUrlVerdict {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: `"${raw.slice(0, 200)}" is not a valid URL; use a full address such as https://example.com/` };
  }
  const protocols = options.protocols ?? ALLOWED_PROTOCOLS;
  if (!protocols.has(url.protocol)) return { ok: false, reason: `${url.protocol} URLs cannot be opened; only http and https are allowed` };
  const host = normalizeHost(url.hostname);
  if (!host) return { ok: false, reason: "the URL has no host" };
  const port = url.port ? Number(url.port) : defaultPort(url.protocol);
  const allowListed = hostAllowed(allowList, host, port);
  if (!allowListed) {
    if (host === "localhost" || host.endsWith(".localhost")) return { ok: false, reason: `${host} is a loopback name` };
    if (net.isIP(host)) {
      const kind = blockedAddressKind(host);
      if (kind && !addressAllowed(allowList, host)) return { ok: false, reason: `${host} is ${kind}` };
    }
  }
  return { ok: true, url, host, port, allowListed };
}

type TLookup = (host: string) => Promise<string[]>;

const systemLookup: TLookup = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The guard with a small DNS cache: pages make many requests to the same few hosts, and the
 * proxy must connect to the address that was checked, not to a fresh (possibly rebound) answer.
 */
export class UrlGuard {
  readonly allowList: TAllowEntry[];
  private readonly lookupHost: TLookup;
  private readonly cacheMs: number;
  private readonly cache = new Map<string, { verdict: TAddressVerdict; expires: number }>();

  constructor(options: { allowedHosts: readonly string[]; lookup?: TLookup; cacheMs?: number }) {
    this.allowList = parseAllowList(options.allowedHosts);
    this.lookupHost = options.lookup ?? systemLookup;
    this.cacheMs = options.cacheMs ?? 30_000;
  }

  /** The full check of a URL a page or the agent wants to open: syntax, then every resolved address. */
  async check(raw: string, options: { protocols?: ReadonlySet<string> } = {}): Promise<TUrlVerdict> {
    const verdict = checkUrlSyntax(raw, this.allowList, options);
    if (!verdict.ok) return verdict;
    const addresses = await this.resolve(verdict.host, verdict.port);
    return addresses.ok ? verdict : addresses;
  }

  /** The addresses a connection to host:port may use; all of them are public, or the host is allowed. */
  async resolve(rawHost: string, port: number): Promise<TAddressVerdict> {
    const host = normalizeHost(rawHost);
    const allowListed = hostAllowed(this.allowList, host, port);
    if (net.isIP(host)) {
      const kind = blockedAddressKind(host);
      return kind && !allowListed && !addressAllowed(this.allowList, host) ? { ok: false, reason: `${host} is ${kind}` } : { ok: true, addresses: [host] };
    }
    if (allowListed) {
      // An allow-listed name may resolve to private addresses; that is the point of the list.
      const addresses = await this.lookupHost(host).catch(() => []);
      return addresses.length ? { ok: true, addresses } : { ok: false, reason: `${host} could not be resolved`, unresolved: true };
    }
    if (host === "localhost" || host.endsWith(".localhost")) return { ok: false, reason: `${host} is a loopback name` };
    const cached = this.cache.get(host);
    if (cached && cached.expires > Date.now()) return cached.verdict;
    const verdict = await this.lookupAndJudge(host);
    if (this.cache.size >= 1_000) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(host, { verdict, expires: Date.now() + this.cacheMs });
    return verdict;
  }

  private async lookupAndJudge(host: string): Promise<TAddressVerdict> {
    let addresses: string[];
    try {
      addresses = await this.lookupHost(host);
    } catch (error) {
      return { ok: false, reason: `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? "DNS error"})`, unresolved: true };
    }
    if (!addresses.length) return { ok: false, reason: `${host} has no addresses`, unresolved: true };
    for (const address of addresses) {
      const kind = blockedAddressKind(address);
      if (kind && !addressAllowed(this.allowList, address)) return { ok: false, reason: `${host} resolves to ${address}, ${kind}` };
    }
    return { ok: true, addresses };
  }
}

import { lookup } from "node:dns/promises";
import { AppError } from "@/lib/errors";
import { addressInRange, blockedAddressKind, parseAddressRange, parseIpAddress, type TAddressRange } from "./ip-address";

/**
 * The SSRF guard. Whatever the server fetches for someone (a page the agent opens, a webhook, a
 * notification, a plugin's request) must never reach the machine it runs on, the private network
 * around it or a cloud metadata service: only http(s) URLs, and every host must resolve to public
 * addresses only, unless an administrator allow-listed the host. Checking is not enough on its
 * own: the connection must go to the very address that was checked (the browser's egress proxy
 * and guardedFetch do that), or a second DNS answer could point somewhere else.
 */
export type TUrlVerdict =
  | { ok: true; url: URL; host: string; port: number; allowListed: boolean; addresses?: string[] }
  | { ok: false; reason: string; unresolved?: boolean };
/** `unresolved`: DNS had no answer (not a refusal; the request just cannot go anywhere). */
export type TAddressVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string; unresolved?: boolean };

export type TAllowEntry = { host: string; port?: number } | { range: TAddressRange };

/** DNS as the guard needs it: every address of a name. Tests pass their own to resolve made-up names. */
export type TLookup = (host: string) => Promise<string[]>;

const ALLOWED_PROTOCOLS = new Set(["http:", "https:"]);

export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

function isLoopbackName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost");
}

/**
 * Parses an allow-list: `host`, `host:port`, `[v6]:port`, a bare IPv6 address, or a CIDR range of
 * addresses (`10.1.0.0/16`). Throws on an entry it cannot read, so a typo fails at start;
 * `setting` names the list in that message (e.g. browser.allowedPrivateHosts).
 */
export function parseAllowList(entries: readonly string[], options: { setting?: string } = {}): TAllowEntry[] {
  const setting = options.setting ?? "allowedPrivateHosts";
  const invalid = (raw: string, problem: string) => new AppError("bad_request", `${setting}: "${raw}" ${problem}`);
  return entries.map((raw) => {
    const entry = raw.trim().toLowerCase();
    if (/^[0-9a-f:.]+\/\d{1,3}$/.test(entry)) {
      const range = parseAddressRange(entry);
      if (!range) throw invalid(raw, "is not a valid address range");
      return { range };
    }
    let host: string | undefined;
    let portText: string | undefined;
    const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(entry);
    const plain = /^([a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    // A bare IPv6 address has colons of its own; only the bracketed form can carry a port.
    if (bracketed && parseIpAddress(bracketed[1]!)?.kind() === "ipv6") [, host, portText] = bracketed;
    else if (entry.includes(":") && parseIpAddress(entry)?.kind() === "ipv6") host = entry;
    else if (plain) [, host, portText] = plain;
    if (!host) throw invalid(raw, "is not a host, host:port or address range");
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && (port < 1 || port > 65_535)) throw invalid(raw, "has an invalid port");
    return { host: normalizeHost(host), port };
  });
}

export function defaultPort(protocol: string): number {
  return protocol === "https:" || protocol === "wss:" ? 443 : 80;
}

function hostAllowed(allowList: readonly TAllowEntry[], host: string, port: number): boolean {
  return allowList.some((entry) => "host" in entry && entry.host === host && (entry.port === undefined || entry.port === port));
}

function addressAllowed(allowList: readonly TAllowEntry[], text: string): boolean {
  const address = parseIpAddress(text);
  return address !== undefined && allowList.some((entry) => "range" in entry && addressInRange(address, entry.range));
}

/** The host (and port) is on the list by name, or the host is an address inside a listed range. */
export function isOnAllowList(allowList: readonly TAllowEntry[], host: string, port: number): boolean {
  const normalized = normalizeHost(host);
  return hostAllowed(allowList, normalized, port) || addressAllowed(allowList, normalized);
}

/** Checks what can be known without DNS: the scheme, and a host that is an address or a loopback name. */
export function checkUrlSyntax(raw: string, allowList: readonly TAllowEntry[], options: { protocols?: ReadonlySet<string> } = {}): TUrlVerdict {
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
    if (isLoopbackName(host)) return { ok: false, reason: `${host} is a loopback name` };
    if (parseIpAddress(host)) {
      const kind = blockedAddressKind(host);
      if (kind && !addressAllowed(allowList, host)) return { ok: false, reason: `${host} is ${kind}` };
    }
  }
  return { ok: true, url, host, port, allowListed };
}

const systemLookup: TLookup = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The guard with a small DNS cache: pages make many requests to the same few hosts, and the
 * browser's proxy must connect to the address that was checked, not to a fresh (possibly rebound)
 * answer. `cacheMs: 0` resolves every time.
 */
export class UrlGuard {
  readonly allowList: TAllowEntry[];
  private readonly lookupHost: TLookup;
  private readonly cacheMs: number;
  private readonly cache = new Map<string, { verdict: TAddressVerdict; expires: number }>();

  constructor(options: { allowedPrivateHosts: readonly string[]; lookup?: TLookup; cacheMs?: number; setting?: string }) {
    this.allowList = parseAllowList(options.allowedPrivateHosts, { setting: options.setting });
    this.lookupHost = options.lookup ?? systemLookup;
    this.cacheMs = options.cacheMs ?? 30_000;
  }

  /** The full check of a URL: syntax, then every resolved address (returned in `addresses`). */
  async check(raw: string, options: { protocols?: ReadonlySet<string> } = {}): Promise<TUrlVerdict> {
    const verdict = checkUrlSyntax(raw, this.allowList, options);
    if (!verdict.ok) return verdict;
    const addresses = await this.resolve(verdict.host, verdict.port);
    return addresses.ok ? { ...verdict, addresses: addresses.addresses } : addresses;
  }

  /** The addresses a connection to host:port may use; all of them are public, or the host is allowed. */
  async resolve(rawHost: string, port: number): Promise<TAddressVerdict> {
    const host = normalizeHost(rawHost);
    const allowListed = hostAllowed(this.allowList, host, port);
    if (parseIpAddress(host)) {
      const kind = blockedAddressKind(host);
      return kind && !allowListed && !addressAllowed(this.allowList, host) ? { ok: false, reason: `${host} is ${kind}` } : { ok: true, addresses: [host] };
    }
    if (allowListed) {
      // An allow-listed name may resolve to private addresses; that is the point of the list.
      const addresses = await this.lookupHost(host).catch(() => []);
      return addresses.length ? { ok: true, addresses } : { ok: false, reason: `${host} could not be resolved`, unresolved: true };
    }
    if (isLoopbackName(host)) return { ok: false, reason: `${host} is a loopback name` };
    const cached = this.cache.get(host);
    if (cached && cached.expires > Date.now()) return cached.verdict;
    const verdict = await this.lookupAndJudge(host);
    if (this.cacheMs > 0) {
      if (this.cache.size >= 1_000) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(host, { verdict, expires: Date.now() + this.cacheMs });
    }
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

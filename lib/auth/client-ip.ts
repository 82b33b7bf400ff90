import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { environment } from "@/lib/config/environment";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";

/**
 * Who is the client, for per-IP rate limits and the same-origin check.
 *
 * Forwarding headers (`X-Forwarded-For`, `X-Real-IP`, `X-Forwarded-Host`/`-Proto`) are written by
 * whoever sends the request, and Next.js only fills them in when they are missing, so on their own
 * they prove nothing. The address that cannot be forged is the TCP peer of the socket, which a
 * route handler never sees. `stampPeerAddress()` (run by lib/http/server-hook.ts, which
 * instrumentation.ts installs inside the Next.js server process) stamps it on every incoming
 * request as `x-xclaw-peer-address`, together with a per-process secret so a client cannot send
 * that header itself, and, when no proxy is trusted, removes the client's forwarding headers before
 * Next.js reads them.
 *
 * - XCLAW_TRUSTED_PROXIES unset or 0: the socket address; forwarding headers are ignored.
 * - N trusted proxies: the N-th `X-Forwarded-For` entry from the right (each proxy appends the
 *   address it received the request from); `X-Real-IP` when the proxy sends only that.
 */
export const PEER_ADDRESS_HEADER = "x-xclaw-peer-address";
const FORWARDING_HEADERS = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip", "forwarded"];

const log = createLogger("http");

type THeaderSource = Headers | Record<string, string | string[] | undefined>;

function readHeader(headers: THeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** The secret is one per process (processSingleton): Next.js bundles instrumentation and routes separately. */
function processSecret(): string {
  return processSingleton("auth.peer-address-secret", () => randomBytes(18).toString("base64url"));
}

export function trustedProxyCount(): number {
  return environment().XCLAW_TRUSTED_PROXIES;
}

function normalizeAddress(address: string): string {
  // A dual-stack listener reports IPv4 clients as ::ffff:a.b.c.d; one client, one key.
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export function peerAddressHeaderValue(address: string): string {
  return `${processSecret()} ${normalizeAddress(address)}`;
}

function peerAddress(headers: THeaderSource): string | undefined {
  const value = readHeader(headers, PEER_ADDRESS_HEADER);
  if (!value) return undefined;
  const space = value.indexOf(" ");
  if (space < 0) return undefined;
  const expected = Buffer.from(processSecret());
  const given = Buffer.from(value.slice(0, space));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const address = value.slice(space + 1);
  return isIP(address) ? address : undefined;
}

/** The `count`-th comma-separated entry from the right, or undefined when there are fewer. */
export function fromTheRight(header: string | undefined, count: number): string | undefined {
  if (!header || count < 1) return undefined;
  const entries = header.split(",").map((entry) => entry.trim()).filter(Boolean);
  return entries.length >= count ? entries[entries.length - count] : undefined;
}

let warnedUnknown = false;

/**
 * The client's IP address, or undefined when it cannot be known (the request did not come through
 * the hook: a server started before instrumentation ran, or a test calling a handler directly).
 * Callers skip per-IP limits then rather than lump every client into one shared bucket.
 */
export function clientIp(headers: THeaderSource): string | undefined {
  const peer = peerAddress(headers);
  const proxies = trustedProxyCount();
  let address = peer;
  if (proxies > 0) {
    const forwarded = readHeader(headers, "x-forwarded-for");
    const candidate = forwarded ? fromTheRight(forwarded, proxies) : readHeader(headers, "x-real-ip")?.trim();
    if (candidate && isIP(candidate)) address = normalizeAddress(candidate);
  }
  if (!address && !warnedUnknown) {
    warnedUnknown = true;
    log.warn("client address unknown: per-IP rate limits are skipped for such requests (is instrumentation.ts loaded?)");
  }
  return address;
}

/** Runs on every request and upgrade before any listener sees it (lib/http/server-hook.ts). */
export function stampPeerAddress(request: IncomingMessage): void {
  const address = request.socket?.remoteAddress;
  if (address) request.headers[PEER_ADDRESS_HEADER] = peerAddressHeaderValue(address);
  else delete request.headers[PEER_ADDRESS_HEADER];
  const proxies = trustedProxyCount();
  if (proxies === 0) {
    // Next.js then fills x-forwarded-for/-host/-proto from the socket and the Host header itself.
    for (const name of FORWARDING_HEADERS) delete request.headers[name];
  } else if (!request.headers["x-forwarded-for"] && typeof request.headers["x-real-ip"] === "string") {
    // Otherwise Next.js would fill x-forwarded-for with the proxy's own address.
    request.headers["x-forwarded-for"] = request.headers["x-real-ip"];
  }
}

import type { LookupAddress, LookupOptions } from "node:dns";
import net from "node:net";
import { Agent, fetch as undiciFetch, type Response as UndiciResponse } from "undici";
import { AppError } from "@/lib/errors";
import { resolvePublicUrl } from "./assert-public-url";
import { isOnAllowList, normalizeHost, parseAllowList, defaultPort, UrlGuard, type TAllowEntry, type TLookup } from "./url-guard";

/**
 * fetch() for server-side requests to addresses someone else chose (webhooks, notification
 * channels, plugins). Every hop is checked like assertPublicUrl, and the connection is made to the
 * very addresses that were checked: the undici Agent of each hop gets a DNS lookup that can only
 * answer with them, so a second, rebound DNS answer never comes into play. Redirects are followed
 * here, not by undici, so each new location is checked before anything is sent to it.
 */
export type TGuardedFetchInit = RequestInit & {
  /** Private hosts an administrator allowed: `host`, `host:port`, `[v6]:port` or a range `10.1.0.0/16`. */
  allowedPrivateHosts?: readonly string[];
  /** When given, the request and every redirect may only go to these hosts (same syntax). */
  allowedHosts?: readonly string[];
  /** For the whole exchange, reading the body included. Default 30 s. */
  timeoutMs?: number;
  /** The body is cut off with an AppError (payload_too_large) beyond this. Default 10 MiB. */
  maxResponseBytes?: number;
  /** DNS for the checks (tests resolve made-up names); the system resolver by default. */
  lookup?: TLookup;
};

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
// Credentials meant for one origin must not follow a redirect to another.
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];

type TLookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup for net.connect that knows one name and answers only with the checked addresses. */
function pinnedLookup(hostname: string, addresses: string[]) {
  const entries: LookupAddress[] = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  return (host: string, options: LookupOptions, callback: TLookupCallback) => {
    const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
    const usable = entries.filter((entry) => !family || entry.family === family);
    if (normalizeHost(host) !== normalizeHost(hostname) || !usable.length) {
      callback(Object.assign(new Error(`no checked address for ${host}`), { code: "ENOTFOUND" }), "");
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}

function failureText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as NodeJS.ErrnoException).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** The method and body a redirect continues with (the fetch standard's rules). */
function redirectedRequest(status: number, method: string, body: Uint8Array | undefined): { method: string; body: Uint8Array | undefined } {
  if (status === 303 && method !== "GET" && method !== "HEAD") return { method: "GET", body: undefined };
  if ((status === 301 || status === 302) && method === "POST") return { method: "GET", body: undefined };
  return { method, body };
}

/** A standard Response whose body stops with an AppError once it grows past the limit. */
function limitedResponse(response: UndiciResponse, url: URL, maxBytes: number, redirected: boolean): Response {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => {});
    throw new AppError("payload_too_large", `${url.origin} answered with ${declared} bytes; at most ${maxBytes} are accepted.`);
  }
  let received = 0;
  const limiter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > maxBytes) controller.error(new AppError("payload_too_large", `${url.origin} answered with more than ${maxBytes} bytes.`));
      else controller.enqueue(chunk);
    },
  });
  const body = NULL_BODY_STATUSES.has(response.status) || !response.body ? null : (response.body as ReadableStream<Uint8Array>).pipeThrough(limiter);
  const result = new Response(body, { status: response.status, statusText: response.statusText, headers: [...response.headers] });
  Object.defineProperties(result, { url: { value: url.href }, redirected: { value: redirected } });
  return result;
}

export async function guardedFetch(input: string | URL, init: TGuardedFetchInit = {}): Promise<Response> {
  const { allowedPrivateHosts = [], allowedHosts, timeoutMs = 30_000, maxResponseBytes = 10 * 1024 * 1024, lookup, ...requestInit } = init;
  const guard = new UrlGuard({ allowedPrivateHosts, lookup, cacheMs: 0 });
  const hostList: TAllowEntry[] | undefined = allowedHosts ? parseAllowList(allowedHosts, { setting: "allowedHosts" }) : undefined;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = requestInit.signal ? AbortSignal.any([requestInit.signal, timeout]) : timeout;
  const redirectMode = requestInit.redirect ?? "follow";

  let { url, addresses } = await resolvePublicUrl(input, { guard });
  // The body is read once up front, so a 307/308 redirect can send it again; Request knows how to
  // serialize every body type fetch accepts (and which content-type goes with it).
  const prepared = new Request(url, { method: requestInit.method, headers: requestInit.headers, body: requestInit.body, duplex: "half" } as RequestInit);
  let method = prepared.method;
  const headers = new Headers(prepared.headers);
  let body: Uint8Array | undefined = prepared.body ? new Uint8Array(await prepared.arrayBuffer()) : undefined;

  for (let redirects = 0; ; redirects++) {
    if (hostList && !isOnAllowList(hostList, url.hostname, url.port ? Number(url.port) : defaultPort(url.protocol))) {
      throw new AppError("bad_request", `${url.origin} is not one of the hosts this request may reach.`);
    }
    const agent = new Agent({ connect: { lookup: pinnedLookup(url.hostname, addresses), timeout: Math.min(timeoutMs, 10_000) }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    let response: UndiciResponse;
    try {
      response = await undiciFetch(url, { method, headers: [...headers], body, redirect: "manual", signal, dispatcher: agent });
    } catch (error) {
      void agent.destroy().catch(() => {});
      if (requestInit.signal?.aborted) throw error;
      if (timeout.aborted) throw new AppError("unavailable", `${url.origin} did not answer within ${timeoutMs < 1_000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}.`, { cause: error });
      throw new AppError("unavailable", `Could not reach ${url.origin}: ${failureText(error)}.`, { cause: error });
    }
    // The agent takes no new requests; the one in flight (this body) still finishes.
    void agent.close().catch(() => {});
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null || redirectMode === "manual") {
      return limitedResponse(response, url, maxResponseBytes, redirects > 0);
    }
    void response.body?.cancel().catch(() => {});
    if (redirectMode === "error") throw new AppError("bad_request", `${url.origin} answered with a redirect, and this request does not follow redirects.`);
    if (redirects >= MAX_REDIRECTS) throw new AppError("bad_request", `${url.origin} redirected more than ${MAX_REDIRECTS} times; the request was given up.`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new AppError("bad_request", `${url.origin} redirected to an invalid location.`);
    }
    if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) headers.delete(name);
    ({ method, body } = redirectedRequest(response.status, method, body));
    if (!body) headers.delete("content-type");
    const from = url.origin;
    ({ url, addresses } = await resolvePublicUrl(next, { guard }).catch((error: unknown) => {
      throw error instanceof AppError ? new AppError(error.code, `Refused a redirect from ${from}: ${error.message}`, { cause: error }) : error;
    }));
  }
}

import { AppError } from "@/lib/errors";
import { UrlGuard, type TLookup } from "./url-guard";

/**
 * The SSRF check for a URL that someone hands the server (a webhook target, a notification
 * channel, a plugin's endpoint): http(s) only, and the host resolves to public addresses only,
 * unless it is on `allowedPrivateHosts`. Refusals are AppErrors whose message names the origin
 * (never the path or query, which may hold a token) and says why.
 */
export type TPublicUrlOptions = {
  /** Hosts an administrator allowed although they are private: `host`, `host:port`, `[v6]:port` or a range `10.1.0.0/16`. */
  allowedPrivateHosts?: readonly string[];
  /** DNS for the check (tests resolve made-up names); the system resolver by default. */
  lookup?: TLookup;
};

function parseHttpUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(raw).trim());
  } catch {
    throw new AppError("bad_request", `"${String(raw).slice(0, 100)}" is not a valid URL; use a full address such as https://example.com/hook`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("bad_request", `${url.protocol} URLs are not allowed; only http and https are`);
  return url;
}

/**
 * Checks the URL and returns it with the addresses it resolved to, so that the connection can be
 * made to exactly those (see guardedFetch). A `guard` can be passed to reuse its allow-list.
 */
export async function resolvePublicUrl(raw: string | URL, options: TPublicUrlOptions & { guard?: UrlGuard } = {}): Promise<{ url: URL; addresses: string[] }> {
  const url = parseHttpUrl(raw);
  const guard = options.guard ?? new UrlGuard({ allowedPrivateHosts: options.allowedPrivateHosts ?? [], lookup: options.lookup, cacheMs: 0 });
  const verdict = await guard.check(url.href);
  if (!verdict.ok && verdict.unresolved) throw new AppError("bad_request", `${url.origin} cannot be reached: ${verdict.reason}.`);
  if (!verdict.ok) throw new AppError("bad_request", `${url.origin} is not allowed: ${verdict.reason}. Only public addresses can be reached; an administrator can allow a private host.`);
  return { url, addresses: verdict.addresses ?? [] };
}

/** Throws an AppError unless the URL is http(s) and its host resolves to public (or allow-listed) addresses only. */
export async function assertPublicUrl(url: string | URL, options: TPublicUrlOptions = {}): Promise<URL> {
  return (await resolvePublicUrl(url, options)).url;
}

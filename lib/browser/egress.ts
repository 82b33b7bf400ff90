import { checkUrlSyntax, parseAllowList, type TAllowEntry } from "@/lib/net/url-guard";

/**
 * Where the browser may send data (DESIGN.md decision 8): only to the sites (origins) the session's
 * owner allowed, unless this one call went through the approval policy. The app sends the policy
 * with every action (lib/browser/browser-tools.ts); the worker enforces it (workers/browser).
 *
 *   ask    navigating to, typing, clicking or pressing keys on, or submitting to a site that is not
 *          in `allowedOrigins` needs `sensitive: true` (so the policy asks the user); the default
 *   allow  no egress rule at all (`browser.egress: allow`, for trusted intranet deployments)
 */
export type TEgressMode = "ask" | "allow";

export type TEgressPolicy = { mode: TEgressMode; allowedOrigins: readonly string[] };

/** `https://example.com` for any http(s) URL; "null" for anything without a web origin (about:blank, data:, junk). */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "ws:" || parsed.protocol === "wss:") parsed.protocol = parsed.protocol === "ws:" ? "http:" : "https:";
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : "null";
  } catch {
    return "null";
  }
}

/** The allowed origins as a set, each normalised the way URL.origin writes it (default ports dropped, lower case); junk is dropped. */
export function allowedOriginSet(origins: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const origin of origins) {
    const normalised = originOf(origin);
    if (normalised !== "null") set.add(normalised);
  }
  return set;
}

/** "example.com", "127.0.0.1:8080": how a person names a site. */
export function siteName(origin: string): string {
  try {
    return new URL(origin).host || origin;
  } catch {
    return origin;
  }
}

const parsedAllowLists = new WeakMap<readonly string[], TAllowEntry[]>();

/**
 * Why the SSRF guard (lib/net/url-guard.ts, the one the worker runs) refuses `destination` (an
 * address or an origin) whatever anyone approves: a loopback name, or an address that is loopback,
 * link-local, private or reserved and not on `browser.allowedPrivateHosts`. Undefined when the
 * guard might let it through. Judged without DNS, like the guard's first stage: a name is looked up
 * only after the user allowed the site, since the lookup alone tells the name to its DNS server.
 */
export function guardRefusal(destination: string, allowedPrivateHosts: readonly string[]): string | undefined {
  let allowList = parsedAllowLists.get(allowedPrivateHosts);
  if (!allowList) parsedAllowLists.set(allowedPrivateHosts, (allowList = parseAllowList(allowedPrivateHosts, { setting: "browser.allowedPrivateHosts" })));
  const verdict = checkUrlSyntax(destination, allowList, { protocols: new Set(["http:", "https:", "ws:", "wss:"]) });
  return verdict.ok ? undefined : verdict.reason;
}

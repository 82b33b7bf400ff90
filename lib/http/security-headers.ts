/**
 * Browser-side defences, in one place for proxy.ts (pages) and next.config.ts (everything else).
 * No imports: next.config.ts loads this file before the app is built.
 *
 * Pages get a Content-Security-Policy with a fresh nonce per request (proxy.ts): Next.js reads the
 * nonce from the policy on the request and puts it on its own scripts, so only scripts we serve
 * run, even if a model's reply or a user's name ever reached the page as markup. 'strict-dynamic'
 * lets those scripts load the app's chunks. Development adds 'unsafe-eval' (React rebuilds server
 * error stacks with eval) and inline styles (the dev server injects CSS with <style> tags).
 * API answers are JSON, never documents: their policy allows nothing at all.
 */
export type TPagePolicyOptions = { nonce: string; development: boolean; upgradeInsecureRequests: boolean };

export function pageContentSecurityPolicy(options: TPagePolicyOptions): string {
  const { nonce, development } = options;
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${development ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    // style="…" attributes (React renders a few, e.g. animation delays); they cannot run code.
    "style-src-attr 'unsafe-inline'",
    // Screenshots from the browser tool arrive as data: or blob: URLs.
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  if (options.upgradeInsecureRequests) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sent with every response (next.config.ts headers()). */
export const SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  // For browsers without CSP frame-ancestors.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
];

/** A fresh, unguessable nonce (128 bits, base64) for one page response. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * What next.config.ts sends with every API answer, for the routes a production server answers
 * before Next.js (lib/http/server-hook.ts): the headers above plus the deny-all policy.
 */
export const API_RESPONSE_HEADERS: Record<string, string> = {
  ...Object.fromEntries(SECURITY_HEADERS.map((header) => [header.key.toLowerCase(), header.value])),
  "content-security-policy": API_CONTENT_SECURITY_POLICY,
};

import { NextResponse, type NextRequest } from "next/server";
import { environment } from "@/lib/config/environment";
import { newNonce, pageContentSecurityPolicy } from "@/lib/http/security-headers";

/**
 * Runs before every page (not API routes — /api and the OpenAI-compatible /v1 — or static files, see `config`) only to give the page a
 * Content-Security-Policy with a per-request nonce: set on the request, so that Next.js puts the
 * nonce on the scripts it renders, and on the response, so that the browser enforces it.
 * Authentication does not happen here: every page and route handler checks it itself.
 */
export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const { NODE_ENV, NEXTAUTH_URL } = environment();
  const policy = pageContentSecurityPolicy({
    nonce,
    development: NODE_ENV === "development",
    upgradeInsecureRequests: NEXTAUTH_URL?.startsWith("https://") ?? false,
  });
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // API routes answer JSON with their own fixed policy (next.config.ts); static files need none.
      source: "/((?!api/|v1/|_next/static|_next/image|favicon.ico|icon.svg).*)",
      // Prefetches of client-side navigations carry no HTML document.
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};

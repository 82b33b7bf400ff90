import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { pageContentSecurityPolicy } from "@/lib/http/security-headers";
import nextConfig from "@/next.config";
import { config as proxyConfig, proxy } from "@/proxy";

function directives(policy: string): Map<string, string[]> {
  return new Map(policy.split(";").map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

describe("Content-Security-Policy for pages", () => {
  it("gives every page response a policy with a fresh nonce, and hands the same policy to Next.js on the request", () => {
    const nonces = new Set<string>();
    for (let index = 0; index < 3; index++) {
      const response = proxy(new NextRequest("http://localhost:3000/sign-in"));
      const policy = response.headers.get("content-security-policy")!;
      const scripts = directives(policy).get("script-src")!;
      const nonce = /^'nonce-([A-Za-z0-9+/=]{24})'$/.exec(scripts.find((value) => value.startsWith("'nonce-")) ?? "")?.[1];
      expect(nonce).toBeDefined();
      nonces.add(nonce!);
      // NextResponse.next({ request: { headers } }) passes request headers on as x-middleware-request-*.
      expect(response.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
      expect(response.headers.get("x-middleware-request-x-nonce")).toBe(nonce);
    }
    expect(nonces.size).toBe(3);
  });

  it("allows only our own nonce'd scripts, no plugins, no framing and no foreign form targets", () => {
    const production = directives(pageContentSecurityPolicy({ nonce: "abc", development: false, upgradeInsecureRequests: true }));
    expect(production.get("script-src")).toEqual(["'self'", "'nonce-abc'", "'strict-dynamic'"]);
    expect(production.get("style-src")).toEqual(["'self'", "'nonce-abc'"]);
    expect(production.get("object-src")).toEqual(["'none'"]);
    expect(production.get("base-uri")).toEqual(["'none'"]);
    expect(production.get("frame-ancestors")).toEqual(["'none'"]);
    expect(production.get("form-action")).toEqual(["'self'"]);
    expect(production.get("connect-src")).toEqual(["'self'"]);
    expect(production.has("upgrade-insecure-requests")).toBe(true);
    // The dev server needs eval and injected <style> tags; production never gets them.
    const development = directives(pageContentSecurityPolicy({ nonce: "abc", development: true, upgradeInsecureRequests: false }));
    expect(development.get("script-src")).toContain("'unsafe-eval'");
    expect(development.get("style-src")).toContain("'unsafe-inline'");
    expect(development.has("upgrade-insecure-requests")).toBe(false);
    expect(production.get("script-src")).not.toContain("'unsafe-eval'");
  });

  it("runs the proxy for pages only, not for API routes, static files or prefetches", () => {
    const matches = (url: string, headers = {}) => unstable_doesMiddlewareMatch({ config: proxyConfig, url, headers });
    for (const page of ["/", "/sign-in", "/chat/123", "/settings"]) expect(matches(page), page).toBe(true);
    for (const other of ["/api/chat", "/api/auth/csrf", "/v1/chat/completions", "/v1/models", "/_next/static/chunks/x.js", "/icon.svg"]) expect(matches(other), other).toBe(false);
    expect(matches("/settings", { "next-router-prefetch": "1" })).toBe(false);
  });
});

describe("headers on every response", () => {
  it("sends nosniff, a referrer policy and no framing everywhere, and a deny-all policy on API routes", async () => {
    const rules = await nextConfig.headers!();
    const everywhere = rules.find((rule) => rule.source === "/:path*")!;
    const values = Object.fromEntries(everywhere.headers.map((header) => [header.key.toLowerCase(), header.value]));
    expect(values["x-content-type-options"]).toBe("nosniff");
    expect(values["referrer-policy"]).toBe("same-origin");
    expect(values["x-frame-options"]).toBe("DENY");
    for (const source of ["/api/:path*", "/v1/:path*"]) {
      const api = rules.find((rule) => rule.source === source)!;
      const policy = directives(api.headers.find((header) => header.key === "Content-Security-Policy")!.value);
      expect(policy.get("default-src"), source).toEqual(["'none'"]);
      expect(policy.get("frame-ancestors"), source).toEqual(["'none'"]);
    }
  });
});

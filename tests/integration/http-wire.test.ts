import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...nextauth]/route";
import { GET as me, PATCH as updateMe } from "@/app/api/me/route";
import { POST as register } from "@/app/api/register/route";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { createUser, STRONG_PASSWORD } from "../support/http";
import { cookiesFrom, send, serveRoutes, signInOverHttp } from "../support/http-server";

/**
 * Behaviour that exists only on the wire, tested over real TCP connections from distinct loopback
 * addresses (127.0.0.2, 127.0.0.3, …) to real route handlers (tests/support/http-server.ts).
 */
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ port, close } = await serveRoutes({
    "/api/auth/[...nextauth]": { GET: authGet, POST: authPost },
    "/api/me": { GET: me, PATCH: updateMe },
    "/api/register": { POST: register },
  }));
  process.env.NEXTAUTH_URL = `http://localhost:${port}`;
  resetEnvironment();
});

afterAll(async () => {
  await close();
  delete process.env.NEXTAUTH_URL;
  resetEnvironment();
});

beforeEach(async () => {
  await db().rateLimitBucket.deleteMany();
});

describe("client addresses come from the socket, not from headers the client writes", () => {
  it("keeps the per-IP sign-in limit whatever X-Forwarded-For or X-Real-IP say", async () => {
    await createUser({ email: "wire-victim@example.com" });
    const { maxFailures } = getBehaviourConfig().auth.signInRateLimit.perIp;
    await db().rateLimitBucket.create({ data: { key: "sign-in:ip:127.0.0.2", count: maxFailures, windowStart: new Date() } });
    const spoofs: Record<string, string>[] = [{}, { "x-forwarded-for": "203.0.113.77" }, { "x-forwarded-for": "198.51.100.1, 203.0.113.78" }, { "x-real-ip": "203.0.113.79" }];
    for (const headers of spoofs) {
      const attempt = await signInOverHttp(port, { from: "127.0.0.2", email: "wire-victim@example.com", password: STRONG_PASSWORD, headers });
      expect(attempt.error, JSON.stringify(headers)).toMatch(/^rate_limited_\d+$/);
    }
    // Another machine is not affected.
    const other = await signInOverHttp(port, { from: "127.0.0.3", email: "wire-victim@example.com", password: STRONG_PASSWORD });
    expect(other.error).toBeNull();
    expect(other.cookie).toMatch(/next-auth\.session-token=/);
  });

  it("counts failures against the sender, never against an address named in X-Forwarded-For", async () => {
    await createUser({ email: "wire-target@example.com" });
    for (let index = 0; index < 3; index++) {
      const attempt = await signInOverHttp(port, {
        from: "127.0.0.4",
        email: `nobody-${index}@example.com`,
        password: "wrong-password-1",
        headers: { "x-forwarded-for": "127.0.0.3", "x-real-ip": "127.0.0.3" },
      });
      expect(attempt.error).toBe("wrong_credentials");
    }
    const keys = (await db().rateLimitBucket.findMany({ where: { key: { startsWith: "sign-in:ip:" } } })).map((bucket) => [bucket.key, bucket.count]);
    expect(keys).toEqual([["sign-in:ip:127.0.0.4", 3]]);
  });

  it("refuses a cookie-authenticated mutation from another origin even when X-Forwarded-Host names it", async () => {
    const { cookie } = await createUser();
    const forged = await send(port, {
      from: "127.0.0.5",
      method: "PATCH",
      path: "/api/me",
      headers: {
        cookie,
        origin: "https://evil.example",
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "Mallory" }),
    });
    expect(forged.status).toBe(403);
    const own = await send(port, {
      from: "127.0.0.5",
      method: "PATCH",
      path: "/api/me",
      headers: { cookie, origin: `http://127.0.0.1:${port}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Alice" }),
    });
    expect(own.status).toBe(200);
  });

  it("limits account creation per client address, whatever X-Forwarded-For says", async () => {
    const { maxAttempts } = getBehaviourConfig().auth.registrationRateLimit.perIp;
    await db().rateLimitBucket.create({ data: { key: "register:ip:127.0.0.6", count: maxAttempts, windowStart: new Date() } });
    const spoofs: Record<string, string>[] = [{}, { "x-forwarded-for": "203.0.113.80" }];
    for (const headers of spoofs) {
      const refused = await send(port, {
        from: "127.0.0.6",
        path: "/api/register",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ email: `wire-new-${Math.random()}@example.com`, password: STRONG_PASSWORD }),
      });
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
      expect((refused.json as { error: { message: string } }).error.message).toMatch(/^Too many sign-up attempts from this address\. Try again in \d+ s\.$/);
    }
    const elsewhere = await send(port, {
      from: "127.0.0.7",
      path: "/api/register",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "wire-new-ok@example.com", password: STRONG_PASSWORD }),
    });
    expect(elsewhere.status).not.toBe(429);
  });
});

describe("request bodies over the limit", () => {
  it("answers 413 to a declared Content-Length over the limit without waiting for the body", async () => {
    // The body is never sent: a server that tried to read it would wait forever.
    const response = await send(port, {
      from: "127.0.0.8",
      path: "/api/register",
      headers: { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) },
      sendBody: false,
    });
    expect(response.status).toBe(413);
    expect(response.json).toEqual({ error: { code: "payload_too_large", message: "The request body is larger than the limit of 1 MiB." } });
  });

  it("answers 413 to a chunked JSON body once it passes the limit", async () => {
    const body = JSON.stringify({ email: "big@example.com", password: STRONG_PASSWORD, name: "x".repeat(2 * 1024 * 1024) });
    const response = await send(port, { from: "127.0.0.8", path: "/api/register", headers: { "content-type": "application/json", "transfer-encoding": "chunked" }, body });
    expect(response.status).toBe(413);
    expect((response.json as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("applies the same limit to the sign-in form", async () => {
    const form = new URLSearchParams({ email: "big@example.com", password: "p".repeat(2 * 1024 * 1024), csrfToken: "x", json: "true" }).toString();
    const chunked = await send(port, { from: "127.0.0.8", path: "/api/auth/callback/credentials", headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" }, body: form });
    expect(chunked.status).toBe(413);
    expect((chunked.json as { error: { code: string } }).error.code).toBe("payload_too_large");
    const declared = await send(port, {
      from: "127.0.0.8",
      path: "/api/auth/callback/credentials",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(20 * 1024 * 1024) },
      sendBody: false,
    });
    expect(declared.status).toBe(413);
  });
});

describe("next-auth endpoints", () => {
  it("refuses NUL characters in the sign-in form with a 400 that names the field", async () => {
    const csrf = await send(port, { from: "127.0.0.9", path: "/api/auth/csrf" });
    const form = new URLSearchParams({ email: "a\u0000@example.com", password: "whatever-1", csrfToken: (csrf.json as { csrfToken: string }).csrfToken, json: "true" });
    const response = await send(port, {
      from: "127.0.0.9",
      path: "/api/auth/callback/credentials",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesFrom(csrf.headers) },
      body: form.toString(),
    });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { code: "bad_request", message: "email contains a character that is not allowed (U+0000 or an unpaired surrogate)." } });
  });

  it("never answers 500 to a malformed callbackUrl, and never redirects off-site", async () => {
    const base = `http://localhost:${port}`;
    for (const callbackUrl of ["http://[", "http://%zz", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "https://evil.example/"]) {
      const page = await send(port, { from: "127.0.0.10", path: `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}` });
      expect(page.status, callbackUrl).toBeLessThan(500);
      const cookie = await send(port, { from: "127.0.0.10", path: "/api/auth/csrf", headers: { cookie: `next-auth.callback-url=${encodeURIComponent(callbackUrl)}` } });
      expect(cookie.status, callbackUrl).toBe(200);
    }
    await createUser({ email: "wire-callback@example.com" });
    for (const callbackUrl of ["http://[", "//evil.example/x", "https://evil.example/"]) {
      const signedIn = await signInOverHttp(port, { from: "127.0.0.10", email: "wire-callback@example.com", password: STRONG_PASSWORD, callbackUrl });
      expect(signedIn.response.status, callbackUrl).toBe(200);
      expect(signedIn.url, callbackUrl).toBe(`${base}/`);
    }
    const inside = await signInOverHttp(port, { from: "127.0.0.10", email: "wire-callback@example.com", password: STRONG_PASSWORD, callbackUrl: "/settings?tab=1" });
    expect(inside.url).toBe(`${base}/settings?tab=1`);
    // The credentials callback exists only as a form post; next-auth itself answers a GET with 500.
    const get = await send(port, { from: "127.0.0.10", path: "/api/auth/callback/credentials" });
    expect(get.status).toBe(405);
  });

  it("ends the session on the server at sign-out: a copy of the cookie stops working", async () => {
    await createUser({ email: "wire-signout@example.com" });
    const signedIn = await signInOverHttp(port, { from: "127.0.0.11", email: "wire-signout@example.com", password: STRONG_PASSWORD });
    expect(signedIn.error).toBeNull();
    const stolenCopy = signedIn.cookie;
    expect((await send(port, { from: "127.0.0.12", path: "/api/me", headers: { cookie: stolenCopy } })).status).toBe(200);

    const csrf = await send(port, { from: "127.0.0.11", path: "/api/auth/csrf", headers: { cookie: signedIn.cookie } });
    const csrfToken = (csrf.json as { csrfToken: string }).csrfToken;
    const signOut = await send(port, {
      from: "127.0.0.11",
      path: "/api/auth/signout",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesFrom(csrf.headers, signedIn.cookie) },
      body: new URLSearchParams({ csrfToken, json: "true" }).toString(),
    });
    expect(signOut.status).toBe(200);
    expect(cookiesFrom(signOut.headers, signedIn.cookie)).not.toMatch(/next-auth\.session-token=/);
    expect((await send(port, { from: "127.0.0.12", path: "/api/me", headers: { cookie: stolenCopy } })).status).toBe(401);
    // Signing in again gives a new, working session.
    const again = await signInOverHttp(port, { from: "127.0.0.11", email: "wire-signout@example.com", password: STRONG_PASSWORD });
    expect((await send(port, { from: "127.0.0.11", path: "/api/me", headers: { cookie: again.cookie } })).status).toBe(200);
  });

  it("marks its answers not cacheable", async () => {
    const csrf = await send(port, { from: "127.0.0.13", path: "/api/auth/csrf" });
    expect(csrf.headers["cache-control"]).toMatch(/(^|, )no-store(,|$)/);
    const signInPage = await send(port, { from: "127.0.0.13", path: "/api/auth/signin" });
    expect(signInPage.headers["cache-control"]).toMatch(/(^|, )no-store(,|$)/);
  });
});

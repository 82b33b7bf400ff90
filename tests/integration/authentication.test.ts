import { encode } from "next-auth/jwt";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { GET as me, PATCH as updateMe } from "@/app/api/me/route";
import { POST as signOutEverywhere } from "@/app/api/me/sign-out-everywhere/route";
import { POST as changePassword } from "@/app/api/me/password/route";
import { GET as listTokens } from "@/app/api/tokens/route";
import { forgetAuth } from "@/lib/auth/auth-cache";
import { authenticate } from "@/lib/auth/authenticate";
import { verifyPassword } from "@/lib/auth/password";
import { pruneRevokedSessions, revokeSession } from "@/lib/auth/revoked-sessions";
import { decodeSessionToken, encodeSessionToken, readSessionCookie, sessionCookieName } from "@/lib/auth/session-token";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { call, createUser, STRONG_PASSWORD } from "../support/http";

/** Every statement sent to the database from now on (over pg, as both databases are reached). */
function recordStatements() {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    statements.push(String((args[0] as { text?: string })?.text ?? args[0]));
    return (original as (...a: unknown[]) => unknown).apply(this, args) as never;
  });
  return { statements, spy };
}

describe("authentication of API routes", () => {
  it("answers 401 JSON without credentials, even when a request claims to be a middleware subrequest", async () => {
    const forged: Record<string, string>[] = [{}, { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware" }];
    for (const headers of forged) {
      const response = await call(me, "/api/me", { headers });
      expect(response.status).toBe(401);
      expect(response.json.error.code).toBe("unauthorized");
      expect(response.headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("returns the caller for a session cookie and for a bearer token", async () => {
    const { user, cookie, token } = await createUser({ email: "me@example.com" });
    const expected = { id: user.id, email: "me@example.com", name: null, role: "user" };
    expect((await call(me, "/api/me", { cookie })).json).toEqual(expected);
    expect((await call(me, "/api/me", { bearer: token })).json).toEqual(expected);
  });

  it("refuses a wrong bearer token even when a valid cookie is present", async () => {
    const { cookie } = await createUser();
    expect((await call(me, "/api/me", { cookie, bearer: "xclaw_" + "A".repeat(43) })).status).toBe(401);
    expect((await call(me, "/api/me", { headers: { authorization: "Basic abc" }, cookie })).status).toBe(401);
  });

  it("refuses a forged or tampered session cookie", async () => {
    const { cookie } = await createUser();
    expect((await call(me, "/api/me", { cookie: cookie.slice(0, -4) + "AAAA" })).status).toBe(401);
    expect((await call(me, "/api/me", { cookie: "next-auth.session-token=not-a-jwt" })).status).toBe(401);
  });

  it("signs every session out at once with sign-out-everywhere, and ends API tokens too", async () => {
    const { cookie, token } = await createUser();
    expect((await call(signOutEverywhere, "/api/me/sign-out-everywhere", { method: "POST", cookie })).status).toBe(200);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
    // A token minted with a stolen cookie must not outlive the owner ending every session.
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(401);
  });

  it("locks a disabled user out of both cookie and token access immediately", async () => {
    const { user, cookie, token } = await createUser();
    await db().user.update({ where: { id: user.id }, data: { status: "DISABLED" } });
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(401);
  });

  it("rejects cookie-authenticated mutations from another origin", async () => {
    const { cookie, token } = await createUser();
    const crossOrigin = await call(updateMe, "/api/me", { method: "PATCH", cookie, body: { name: "Mallory" }, origin: "https://evil.example" });
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.json.error.message).toBe("Cross-origin request refused.");
    const crossSite = await call(updateMe, "/api/me", {
      method: "PATCH",
      cookie,
      body: { name: "Mallory" },
      origin: null,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await call(updateMe, "/api/me", { method: "PATCH", cookie, body: { name: "Alice" } });
    expect(sameOrigin.status).toBe(200);
    expect(sameOrigin.json.name).toBe("Alice");
    // Bearer tokens are not sent by browsers on their own, so their origin does not matter.
    const withToken = await call(updateMe, "/api/me", { method: "PATCH", bearer: token, body: { name: "Bot" }, origin: "https://elsewhere.example" });
    expect(withToken.status).toBe(200);
    // Reads are never state-changing; a cross-origin GET is answered (CORS keeps the body from other sites).
    expect((await call(listTokens, "/api/tokens", { cookie, headers: { origin: "https://evil.example" } })).status).toBe(200);
  });

  it("changes the password only with the current one, then signs out every session and ends every token", async () => {
    const { user, cookie, token } = await createUser();
    const wrong = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: "nope-nope-1", newPassword: "another-pass-77" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.message).toBe("Current password is incorrect.");
    const weak = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "short" } });
    expect(weak.status).toBe(400);
    expect(weak.json.error.message).toMatch(/at least 8 characters/);

    const ok = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "another-pass-77" } });
    expect(ok.status).toBe(200);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(401);
    const stored = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword("another-pass-77", stored.passwordHash)).toBe(true);
    expect(await verifyPassword(STRONG_PASSWORD, stored.passwordHash)).toBe(false);
  });

  it("validates profile updates", async () => {
    const { cookie } = await createUser();
    const tooLong = await call(updateMe, "/api/me", { method: "PATCH", cookie, body: { name: "x".repeat(101) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error.message).toBe("Name is at most 100 characters.");
    const cleared = await call(updateMe, "/api/me", { method: "PATCH", cookie, body: { name: "   " } });
    expect(cleared.json.name).toBeNull();
  });
  it("limits wrong current passwords per account with 429 and Retry-After, even for the right one", async () => {
    const { user, cookie, token } = await createUser();
    const { maxFailures, windowSeconds } = getBehaviourConfig().auth.passwordChangeRateLimit;
    for (let index = 0; index < maxFailures; index++) {
      const wrong = await call(changePassword, "/api/me/password", { bearer: token, body: { currentPassword: `guess-${index}-x`, newPassword: "another-pass-77" } });
      expect(wrong.status).toBe(400);
    }
    const blocked = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "another-pass-77" } });
    expect(blocked.status).toBe(429);
    const seconds = Number(blocked.headers.get("retry-after"));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(windowSeconds);
    expect(blocked.json.error.message).toBe(`Too many wrong current passwords. Try again in ${seconds} s.`);
    const stored = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(STRONG_PASSWORD, stored.passwordHash)).toBe(true);
    // Another account is not affected.
    const other = await createUser();
    const fine = await call(changePassword, "/api/me/password", { cookie: other.cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "another-pass-77" } });
    expect(fine.status).toBe(200);
  });

  it("does not let X-Forwarded-Host or -Proto widen the same-origin check without trusted proxies", async () => {
    const { cookie } = await createUser();
    const forged = await call(updateMe, "/api/me", {
      method: "PATCH",
      cookie,
      body: { name: "Mallory" },
      origin: "https://evil.example",
      headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    });
    expect(forged.status).toBe(403);
    process.env.XCLAW_TRUSTED_PROXIES = "1";
    resetEnvironment();
    try {
      const proxied = await call(updateMe, "/api/me", {
        method: "PATCH",
        cookie,
        body: { name: "Alice" },
        origin: "https://xclaw.example",
        headers: { "x-forwarded-host": "evil.example, xclaw.example", "x-forwarded-proto": "https" },
      });
      expect(proxied.status).toBe(200);
    } finally {
      delete process.env.XCLAW_TRUSTED_PROXIES;
      resetEnvironment();
    }
  });

  it("refuses a signed-out session, an expired one and a cookie without a session id", async () => {
    const { user, cookie } = await createUser();
    expect((await call(me, "/api/me", { cookie })).status).toBe(200);
    const claims = await decodeSessionToken(readSessionCookie(cookie)!);
    await revokeSession(claims!);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);

    const name = sessionCookieName();
    const expired = await encodeSessionToken({ userId: user.id, sessionVersion: user.sessionVersion }, { expiresAt: new Date(Date.now() - 1_000) });
    expect((await call(me, "/api/me", { cookie: `${name}=${expired}` })).status).toBe(401);
    const legacy = await encode({ token: { sub: user.id, sv: user.sessionVersion }, secret: process.env.NEXTAUTH_SECRET! });
    expect((await call(me, "/api/me", { cookie: `${name}=${legacy}` })).status).toBe(401);
    // Another session of the same user is unaffected.
    const other = await encodeSessionToken({ userId: user.id, sessionVersion: user.sessionVersion });
    expect((await call(me, "/api/me", { cookie: `${name}=${other}` })).status).toBe(200);
  });

  it("authenticates a cookie and a bearer token with one database round trip each", async () => {
    const { cookie, token } = await createUser();
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(200);
    const { statements, spy } = recordStatements();
    try {
      for (const credentials of [{ cookie }, { bearer: token }]) {
        const request = () =>
          new Request("http://localhost:3000/api/me", { headers: credentials.cookie ? { cookie: credentials.cookie } : { authorization: `Bearer ${credentials.bearer}` } });
        forgetAuth();
        statements.length = 0;
        const auth = await authenticate(request());
        expect(auth?.user.email, JSON.stringify(credentials)).toBeDefined();
        expect(statements, JSON.stringify(credentials)).toHaveLength(1);
        // Seen seconds ago: no round trip at all.
        statements.length = 0;
        expect((await authenticate(request()))?.user.id).toBe(auth?.user.id);
        expect(statements, JSON.stringify(credentials)).toHaveLength(0);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it("looks a credential up once for requests sent at once", async () => {
    const { cookie, token, user } = await createUser();
    const { statements, spy } = recordStatements();
    try {
      for (const headers of [{ cookie }, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
        forgetAuth();
        statements.length = 0;
        const answers = await Promise.all(Array.from({ length: 10 }, () => authenticate(new Request("http://localhost:3000/api/me", { headers }))));
        expect(answers.map((answer) => answer?.user.id)).toEqual(Array(10).fill(user.id));
        expect(statements, Object.keys(headers)[0]).toHaveLength(1);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it("forgets remembered credentials at once when access ends in this process", async () => {
    const { cookie, token } = await createUser();
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(200);
    expect((await call(me, "/api/me", { cookie })).status).toBe(200);
    expect((await call(signOutEverywhere, "/api/me/sign-out-everywhere", { cookie, body: {} })).status).toBeLessThan(300);
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(401);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
  });

  it("keeps revoked-session rows only until the session would have expired", async () => {
    const { user } = await createUser();
    await revokeSession({ userId: user.id, sessionVersion: 1, sessionId: "expired-session-000001", expiresAt: new Date(Date.now() + 60_000) });
    await revokeSession({ userId: user.id, sessionVersion: 1, sessionId: "current-session-000001", expiresAt: new Date(Date.now() + 3_600_000) });
    const before = await db().revokedSession.count();
    expect(await pruneRevokedSessions({ now: new Date(Date.now() + 120_000) })).toBe(1);
    expect(await db().revokedSession.count()).toBe(before - 1);
    expect((await db().revokedSession.findMany({ where: { userId: user.id } })).map((row) => row.sessionId)).toEqual(["current-session-000001"]);
  });
});

import { describe, expect, it } from "vitest";
import { GET as me, PATCH as updateMe } from "@/app/api/me/route";
import { POST as signOutEverywhere } from "@/app/api/me/sign-out-everywhere/route";
import { POST as changePassword } from "@/app/api/me/password/route";
import { GET as listTokens } from "@/app/api/tokens/route";
import { verifyPassword } from "@/lib/auth/password";
import { db } from "@/lib/db/client";
import { call, createUser, STRONG_PASSWORD } from "../support/http";

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

  it("signs every session out at once with sign-out-everywhere, but keeps API tokens", async () => {
    const { cookie, token } = await createUser();
    expect((await call(signOutEverywhere, "/api/me/sign-out-everywhere", { method: "POST", cookie })).status).toBe(200);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(200);
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

  it("changes the password only with the current one, then signs out every session", async () => {
    const { user, cookie } = await createUser();
    const wrong = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: "nope-nope-1", newPassword: "another-pass-77" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.message).toBe("Current password is incorrect.");
    const weak = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "short" } });
    expect(weak.status).toBe(400);
    expect(weak.json.error.message).toMatch(/at least 8 characters/);

    const ok = await call(changePassword, "/api/me/password", { cookie, body: { currentPassword: STRONG_PASSWORD, newPassword: "another-pass-77" } });
    expect(ok.status).toBe(200);
    expect((await call(me, "/api/me", { cookie })).status).toBe(401);
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
});

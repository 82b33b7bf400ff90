import { describe, expect, it } from "vitest";
import { GET as me } from "@/app/api/me/route";
import { GET as listTokens, POST as createToken } from "@/app/api/tokens/route";
import { DELETE as revokeToken } from "@/app/api/tokens/[id]/route";
import { POST as signOutEverywhere } from "@/app/api/me/sign-out-everywhere/route";
import { hashApiToken } from "@/lib/auth/api-tokens";
import { encodeSessionToken, sessionCookieName } from "@/lib/auth/session-token";
import { db } from "@/lib/db/client";
import { call, createUser } from "../support/http";

describe("personal API tokens", () => {
  it("shows a new token once, stores only its hash, and lists tokens without secrets", async () => {
    const { user, cookie } = await createUser();
    const created = await call(createToken, "/api/tokens", { cookie, body: { name: "laptop" } });
    expect(created.status).toBe(201);
    expect(created.json.token).toMatch(/^xclaw_[A-Za-z0-9_-]{43}$/);
    expect(created.json).toMatchObject({ name: "laptop", prefix: created.json.token.slice(0, 12) });

    const row = await db().apiToken.findUniqueOrThrow({ where: { id: created.json.id } });
    expect(row.tokenHash).toBe(hashApiToken(created.json.token));
    expect(JSON.stringify(row)).not.toContain(created.json.token);

    const listed = await call(listTokens, "/api/tokens", { cookie });
    expect(listed.status).toBe(200);
    const names = listed.json.tokens.map((token: { name: string }) => token.name);
    expect(names).toEqual(["laptop", "test"]);
    const serialized = JSON.stringify(listed.json);
    expect(serialized).not.toContain(created.json.token);
    expect(serialized).not.toContain("tokenHash");

    const viaToken = await call(me, "/api/me", { bearer: created.json.token });
    expect(viaToken.json.id).toBe(user.id);
    const used = await db().apiToken.findUniqueOrThrow({ where: { id: created.json.id } });
    expect(used.lastUsedAt).not.toBeNull();
  });

  it("revokes a token so it stops working at once", async () => {
    const { cookie } = await createUser();
    const created = await call(createToken, "/api/tokens", { cookie, body: { name: "ci" } });
    const revoked = await call(revokeToken, `/api/tokens/${created.json.id}`, { method: "DELETE", cookie, params: { id: created.json.id } });
    expect(revoked.status).toBe(204);
    expect((await call(me, "/api/me", { bearer: created.json.token })).status).toBe(401);
    const again = await call(revokeToken, `/api/tokens/${created.json.id}`, { method: "DELETE", cookie, params: { id: created.json.id } });
    expect(again.status).toBe(404);
  });

  it("never lets one user see or revoke another user's token (404, token keeps working)", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const bobToken = await db().apiToken.findFirstOrThrow({ where: { userId: bob.user.id } });
    const attempt = await call(revokeToken, `/api/tokens/${bobToken.id}`, { method: "DELETE", cookie: alice.cookie, params: { id: bobToken.id } });
    expect(attempt.status).toBe(404);
    expect(attempt.json.error).toEqual({ code: "not_found", message: "No such token." });
    expect((await call(me, "/api/me", { bearer: bob.token })).status).toBe(200);
    const aliceList = await call(listTokens, "/api/tokens", { bearer: alice.token });
    expect(aliceList.json.tokens.map((token: { id: string }) => token.id)).not.toContain(bobToken.id);
  });

  it("answers 404 for a malformed token id and 400 for a bad name", async () => {
    const { cookie } = await createUser();
    expect((await call(revokeToken, "/api/tokens/not-a-uuid", { method: "DELETE", cookie, params: { id: "not-a-uuid" } })).status).toBe(404);
    const blank = await call(createToken, "/api/tokens", { cookie, body: { name: "  " } });
    expect(blank.status).toBe(400);
    expect(blank.json.error.message).toBe("Give the token a name.");
    const missing = await call(createToken, "/api/tokens", { cookie, body: {} });
    expect(missing.json.error.message).toBe("name is required.");
  });

  it("requires authentication for every token route", async () => {
    expect((await call(listTokens, "/api/tokens")).status).toBe(401);
    expect((await call(createToken, "/api/tokens", { body: { name: "x" } })).status).toBe(401);
    expect((await call(revokeToken, "/api/tokens/x", { method: "DELETE", params: { id: "x" } })).status).toBe(401);
  });
  it("stops a token when the owner's sessions end, shows it as inactive, and lets new tokens work", async () => {
    const { user, token } = await createUser();
    expect((await call(signOutEverywhere, "/api/me/sign-out-everywhere", { method: "POST", bearer: token })).status).toBe(200);
    expect((await call(me, "/api/me", { bearer: token })).status).toBe(401);
    // Signing in again gives a session with the new version.
    const current = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    const cookie = `${sessionCookieName()}=${await encodeSessionToken({ userId: user.id, sessionVersion: current.sessionVersion })}`;
    const listed = await call(listTokens, "/api/tokens", { cookie });
    expect(listed.json.tokens.map((row: { name: string; active: boolean }) => [row.name, row.active])).toEqual([["test", false]]);
    const created = await call(createToken, "/api/tokens", { cookie, body: { name: "after" } });
    expect(created.json.active).toBe(true);
    expect((await call(me, "/api/me", { bearer: created.json.token })).status).toBe(200);
    const relisted = await call(listTokens, "/api/tokens", { cookie });
    expect(relisted.json.tokens.map((row: { name: string; active: boolean }) => [row.name, row.active])).toEqual([["after", true], ["test", false]]);
  });
});

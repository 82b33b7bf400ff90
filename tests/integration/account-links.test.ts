import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as describeLink, POST as redeemLink } from "@/app/api/account-links/[token]/route";
import { POST as passwordLink } from "@/app/api/admin/users/[id]/password-link/route";
import { GET as listUsers, POST as addUser } from "@/app/api/admin/users/route";
import { PATCH as changeEmailRoute } from "@/app/api/me/email/route";
import { GET as me, PATCH as updateMe } from "@/app/api/me/route";
import { verifyCredentials } from "@/lib/auth/sign-in";
import { db } from "@/lib/db/client";
import { call, createUser, STRONG_PASSWORD } from "../support/http";

const NEW_PASSWORD = "a-fresh-secret-77";

function tokenOf(path: string): string {
  expect(path).toMatch(/^\/set-password\/[A-Za-z0-9_-]{43}$/);
  return path.split("/").pop()!;
}

async function redeem(token: string, password: string) {
  return call(redeemLink, `/api/account-links/${token}`, { params: { token }, body: { password }, origin: null });
}

describe("admins add people with a one-time invitation link", () => {
  beforeEach(async () => {
    await db().user.deleteMany();
  });

  it("adds a person who can sign in only after choosing a password through the link, once", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const added = await call(addUser, "/api/admin/users", { cookie: admin.cookie, body: { email: "  New.Person@Example.com ", name: "New Person" } });
    expect(added.status).toBe(201);
    expect(added.json.user).toMatchObject({ email: "new.person@example.com", name: "New Person", role: "user" });
    const token = tokenOf(added.json.link.path);
    expect(new Date(added.json.link.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);

    // Only a hash of the token is stored.
    const stored = await db().accountLink.findFirstOrThrow({ where: { userId: added.json.user.id } });
    expect(stored.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(token);

    const listed = (await call(listUsers, "/api/admin/users", { cookie: admin.cookie })).json.users;
    expect(listed.find((user: { email: string }) => user.email === "new.person@example.com").invited).toBe(true);

    // Nobody can sign in before the invitation is used.
    await expect(verifyCredentials({ email: "new.person@example.com", password: NEW_PASSWORD, ip: undefined })).rejects.toThrow("Email or password is incorrect.");

    const view = await call(describeLink, "/x", { params: { token } });
    expect(view.json).toEqual({ kind: "invite", email: "new.person@example.com", name: "New Person" });
    const weak = await redeem(token, "short");
    expect(weak.status).toBe(400);
    // A weak password does not spend the link.
    expect((await redeem(token, NEW_PASSWORD)).status).toBe(200);
    const user = await verifyCredentials({ email: "new.person@example.com", password: NEW_PASSWORD, ip: undefined });
    expect(user.email).toBe("new.person@example.com");

    const again = await redeem(token, "another-secret-88");
    expect(again.status).toBe(404);
    expect(again.json.error.message).toMatch(/not valid any more/);
    expect((await call(describeLink, "/x", { params: { token } })).status).toBe(404);
  });

  it("refuses non-admins, duplicates and malformed input", async () => {
    const member = await createUser();
    expect((await call(addUser, "/api/admin/users", { cookie: member.cookie, body: { email: "x@example.com" } })).status).toBe(403);
    expect((await call(passwordLink, "/x", { cookie: member.cookie, params: { id: member.user.id } })).status).toBe(403);
    const admin = await createUser({ role: "ADMIN", email: "boss@example.com" });
    const duplicate = await call(addUser, "/api/admin/users", { cookie: admin.cookie, body: { email: "BOSS@example.com" } });
    expect(duplicate.status).toBe(409);
    expect((await call(addUser, "/api/admin/users", { cookie: admin.cookie, body: { email: "not an email" } })).status).toBe(400);
    expect((await call(passwordLink, "/x", { cookie: admin.cookie, params: { id: "nope" } })).status).toBe(404);
    expect((await call(describeLink, "/x", { params: { token: "nope" } })).status).toBe(404);
    expect((await redeem("A".repeat(43), NEW_PASSWORD)).status).toBe(404);
  });
});

describe("admins reset a password with a one-time link", () => {
  it("the link sets a new password, ends every session and token, and the newest link replaces older ones", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const member = await createUser();
    await db().user.update({ where: { id: member.user.id }, data: { lastSignInAt: new Date() } });
    const first = await call(passwordLink, "/x", { cookie: admin.cookie, params: { id: member.user.id } });
    expect(first.status).toBe(201);
    expect(first.json.kind).toBe("reset");
    const second = await call(passwordLink, "/x", { cookie: admin.cookie, params: { id: member.user.id } });
    // The old password works until a link is used.
    expect((await call(me, "/api/me", { cookie: member.cookie })).status).toBe(200);

    expect((await redeem(tokenOf(first.json.link.path), NEW_PASSWORD)).status).toBe(404);
    expect((await redeem(tokenOf(second.json.link.path), NEW_PASSWORD)).status).toBe(200);
    expect((await call(me, "/api/me", { cookie: member.cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: member.token })).status).toBe(401);
    await expect(verifyCredentials({ email: member.user.email, password: STRONG_PASSWORD, ip: undefined })).rejects.toThrow();
    expect((await verifyCredentials({ email: member.user.email, password: NEW_PASSWORD, ip: undefined })).id).toBe(member.user.id);
  });

  it("an expired link does nothing", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const member = await createUser();
    const created = await call(passwordLink, "/x", { cookie: admin.cookie, params: { id: member.user.id } });
    await db().accountLink.updateMany({ where: { userId: member.user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await redeem(tokenOf(created.json.link.path), NEW_PASSWORD)).status).toBe(404);
    expect((await call(me, "/api/me", { cookie: member.cookie })).status).toBe(200);
  });
});

describe("people change their own email and custom instructions", () => {
  it("changes the email with the current password; a wrong one or a taken email is refused", async () => {
    const member = await createUser({ email: "old@example.com" });
    await createUser({ email: "taken@example.com" });
    const wrong = await call(changeEmailRoute, "/api/me/email", { method: "PATCH", cookie: member.cookie, body: { email: "new@example.com", currentPassword: "wrong-password-1" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.message).toBe("Current password is incorrect.");
    const taken = await call(changeEmailRoute, "/api/me/email", { method: "PATCH", cookie: member.cookie, body: { email: "Taken@example.com", currentPassword: STRONG_PASSWORD } });
    expect(taken.status).toBe(409);
    const changed = await call(changeEmailRoute, "/api/me/email", { method: "PATCH", cookie: member.cookie, body: { email: "New@Example.com", currentPassword: STRONG_PASSWORD } });
    expect(changed.status).toBe(200);
    expect(changed.json.email).toBe("new@example.com");
    // Still signed in, and the new email signs in.
    expect((await call(me, "/api/me", { cookie: member.cookie })).json.email).toBe("new@example.com");
    expect((await verifyCredentials({ email: "new@example.com", password: STRONG_PASSWORD, ip: undefined })).id).toBe(member.user.id);
  });

  it("stores custom instructions (trimmed, empty means none, with a length limit)", async () => {
    const member = await createUser();
    const saved = await call(updateMe, "/api/me", { method: "PATCH", cookie: member.cookie, body: { instructions: "  Answer in French.  " } });
    expect(saved.status).toBe(200);
    expect(saved.json.instructions).toBe("Answer in French.");
    expect((await db().user.findUniqueOrThrow({ where: { id: member.user.id } })).instructions).toBe("Answer in French.");
    expect((await call(updateMe, "/api/me", { method: "PATCH", cookie: member.cookie, body: { instructions: "x".repeat(4_001) } })).status).toBe(400);
    expect((await call(updateMe, "/api/me", { method: "PATCH", cookie: member.cookie, body: {} })).status).toBe(400);
    const cleared = await call(updateMe, "/api/me", { method: "PATCH", cookie: member.cookie, body: { instructions: "   " } });
    expect(cleared.json.instructions).toBeNull();
  });
});

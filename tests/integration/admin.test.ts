import { beforeEach, describe, expect, it } from "vitest";
import { GET as listUsers } from "@/app/api/admin/users/route";
import { PATCH as updateUser } from "@/app/api/admin/users/[id]/route";
import { GET as getSettings, PATCH as updateSettings } from "@/app/api/admin/settings/route";
import { GET as me } from "@/app/api/me/route";
import { createApiToken } from "@/lib/auth/api-tokens";
import { db } from "@/lib/db/client";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { call, createUser } from "../support/http";

describe("admin API", () => {
  beforeEach(async () => {
    await db().user.deleteMany();
    await db().setting.deleteMany();
  });

  it("is closed to non-admins and to anonymous callers", async () => {
    const user = await createUser();
    expect((await call(listUsers, "/api/admin/users", { cookie: user.cookie })).status).toBe(403);
    expect((await call(listUsers, "/api/admin/users")).status).toBe(401);
    const target = await createUser();
    const attempt = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: user.cookie, params: { id: target.user.id }, body: { status: "disabled" } });
    expect(attempt.status).toBe(403);
    expect((await call(me, "/api/me", { cookie: target.cookie })).status).toBe(200);
    expect((await call(updateSettings, "/api/admin/settings", { method: "PATCH", bearer: user.token, body: { registrationOpen: false } })).status).toBe(403);
  });

  it("lists users without secrets", async () => {
    const admin = await createUser({ role: "ADMIN", email: "root@example.com" });
    await createUser({ email: "pleb@example.com" });
    const response = await call(listUsers, "/api/admin/users", { cookie: admin.cookie });
    expect(response.status).toBe(200);
    expect(response.json.users.map((user: { email: string; role: string; status: string }) => [user.email, user.role, user.status])).toEqual([
      ["root@example.com", "admin", "active"],
      ["pleb@example.com", "user", "active"],
    ]);
    expect(JSON.stringify(response.json)).not.toMatch(/passwordHash|sessionVersion|scrypt/);
  });

  it("disables a user (their sessions and tokens stop at once, for good) and enables them again", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const target = await createUser();
    const disabled = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: target.user.id }, body: { status: "disabled" } });
    expect(disabled.status).toBe(200);
    expect(disabled.json.user.status).toBe("disabled");
    expect((await call(me, "/api/me", { cookie: target.cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: target.token })).status).toBe(401);

    const enabled = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: target.user.id }, body: { status: "active" } });
    expect(enabled.json.user.status).toBe("active");
    // Old browser sessions and API tokens stay dead: whoever held them while the account was
    // disabled (the reason to disable it) must not get back in by the account being enabled.
    expect((await call(me, "/api/me", { cookie: target.cookie })).status).toBe(401);
    expect((await call(me, "/api/me", { bearer: target.token })).status).toBe(401);
  });

  it("promotes and demotes, but never the last admin or oneself", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const other = await createUser();
    const self = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: admin.user.id }, body: { role: "user" } });
    expect(self.status).toBe(400);
    expect(self.json.error.message).toBe("You cannot disable or demote your own account; ask another admin.");

    const promoted = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: other.user.id }, body: { role: "admin" } });
    expect(promoted.json.user.role).toBe("admin");
    expect((await call(listUsers, "/api/admin/users", { bearer: other.token })).status).toBe(200);

    const demoted = await call(updateUser, "/api/admin/users/x", { method: "PATCH", bearer: other.token, params: { id: admin.user.id }, body: { role: "user" } });
    expect(demoted.json.user.role).toBe("user");
    // Demotion ends the former admin's sessions and tokens, like disabling does.
    expect((await call(listUsers, "/api/admin/users", { bearer: admin.token })).status).toBe(401);
    const { token: newToken } = await createApiToken({ userId: admin.user.id, name: "after demotion" });
    const lastAdmin = await call(updateUser, "/api/admin/users/x", { method: "PATCH", bearer: newToken, params: { id: other.user.id }, body: { role: "user" } });
    expect(lastAdmin.status).toBe(403);
  });

  it("answers 404 for unknown users and 400 for empty or invalid changes", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const unknown = await call(updateUser, "/api/admin/users/x", {
      method: "PATCH",
      cookie: admin.cookie,
      params: { id: "00000000-0000-4000-8000-000000000000" },
      body: { status: "disabled" },
    });
    expect(unknown.status).toBe(404);
    expect((await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: "nope" }, body: { status: "disabled" } })).status).toBe(404);
    const empty = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: admin.user.id }, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toBe("Nothing to change: send status and/or role.");
    const invalid = await call(updateUser, "/api/admin/users/x", { method: "PATCH", cookie: admin.cookie, params: { id: admin.user.id }, body: { role: "root" } });
    expect(invalid.status).toBe(400);
  });

  it("toggles open registration", async () => {
    const admin = await createUser({ role: "ADMIN" });
    expect((await call(getSettings, "/api/admin/settings", { cookie: admin.cookie })).json).toEqual({ registrationOpen: true });
    const closed = await call(updateSettings, "/api/admin/settings", { method: "PATCH", cookie: admin.cookie, body: { registrationOpen: false } });
    expect(closed.json).toEqual({ registrationOpen: false });
    expect(await isRegistrationOpen()).toBe(false);
    const bad = await call(updateSettings, "/api/admin/settings", { method: "PATCH", cookie: admin.cookie, body: { registrationOpen: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toBe("registrationOpen must be true or false.");
  });
});

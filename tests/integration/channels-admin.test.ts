import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as deleteAccountRoute, PATCH as patchAccountRoute } from "@/app/api/admin/channels/[id]/route";
import { POST as testAccountRoute } from "@/app/api/admin/channels/[id]/test/route";
import { GET as listAccountsRoute, POST as createAccountRoute } from "@/app/api/admin/channels/route";
import { DELETE as unbindRoute } from "@/app/api/me/channel-bindings/[id]/route";
import { POST as createCodeRoute } from "@/app/api/me/channel-bindings/code/route";
import { GET as listBindingsRoute } from "@/app/api/me/channel-bindings/route";
import { GET as listSessionsRoute } from "@/app/api/sessions/route";
import { redeemBindingCode } from "@/lib/channels/binding-codes";
import { conversationFor } from "@/lib/channels/conversations";
import { db } from "@/lib/db/client";
import { writeChronosConfig } from "../support/chronos";
import { bindingCode } from "../support/channels";
import { startFakeQq, type TFakeQq } from "../support/fake-qq";
import { call, createUser } from "../support/http";

/**
 * The admin API for bot accounts (admins only; secrets sealed and never shown) and the binding
 * API in Settings → Channels (one-time codes, a person's own bindings only).
 */
writeChronosConfig({ "channels.allowedPrivateHosts": ["127.0.0.1"] });

const SECRET = "qq-admin-test-secret-0123456789";
let qq: TFakeQq;
let admin: Awaited<ReturnType<typeof createUser>>;
let person: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  qq = await startFakeQq({ appId: "555", secret: SECRET });
  admin = await createUser({ role: "ADMIN" });
  person = await createUser();
});
afterAll(() => qq.close());

function createAccount(cookie: string, body: Record<string, unknown>) {
  return call(createAccountRoute, "/api/admin/channels", { cookie, body });
}

describe("admin channel accounts", () => {
  it("is for admins only", async () => {
    const id = "6b1f0a52-0000-4000-8000-000000000000";
    const answers = [
      await call(listAccountsRoute, "/api/admin/channels", { cookie: person.cookie }),
      await createAccount(person.cookie, { kind: "qq", name: "x", appId: "1", appSecret: "s" }),
      await call(patchAccountRoute, `/api/admin/channels/${id}`, { cookie: person.cookie, method: "PATCH", body: { enabled: false }, params: { id } }),
      await call(deleteAccountRoute, `/api/admin/channels/${id}`, { cookie: person.cookie, method: "DELETE", params: { id } }),
      await call(testAccountRoute, `/api/admin/channels/${id}/test`, { cookie: person.cookie, method: "POST", params: { id } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await db().channelAccount.count()).toBe(0);
  });

  it("creates accounts with sealed secrets and the callback URL to paste, and refuses what cannot work", async () => {
    const created = await createAccount(admin.cookie, { kind: "qq", name: "Helper", appId: "555", appSecret: SECRET, apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl });
    expect(created.status).toBe(201);
    const { channel } = created.json;
    expect(channel).toMatchObject({ kind: "qq", name: "Helper", appId: "555", enabled: true, callbackUrl: `http://localhost:3000/api/channels/qq/${channel.id}/callback`, rejectedCount: 0 });
    const feishu = await createAccount(admin.cookie, { kind: "feishu", name: "Lark", appId: "cli_1", appSecret: "lark-secret", verificationToken: "lark-token", encryptKey: "lark-key" });
    expect(feishu.json.channel.callbackUrl).toBe(`http://localhost:3000/api/channels/feishu/${feishu.json.channel.id}/events`);

    const listed = await call(listAccountsRoute, "/api/admin/channels", { cookie: admin.cookie });
    expect(listed.json.channels.map((entry: { name: string }) => entry.name)).toEqual(["Helper", "Lark"]);
    const everything = JSON.stringify(listed.json) + JSON.stringify(created.json) + JSON.stringify(await db().channelAccount.findMany());
    for (const secret of [SECRET, "lark-secret", "lark-token", "lark-key"]) expect(everything).not.toContain(secret);

    const refused = [
      await createAccount(admin.cookie, { kind: "feishu", name: "No key", appId: "cli_2", appSecret: "s", verificationToken: "t" }),
      await createAccount(admin.cookie, { kind: "qq", name: "Odd", appId: "1", appSecret: "s", encryptKey: "k" }),
      await createAccount(admin.cookie, { kind: "slack", name: "Slack", appId: "1", appSecret: "s" }),
      await createAccount(admin.cookie, { kind: "qq", name: "Metadata", appId: "1", appSecret: "s", apiBaseUrl: "http://169.254.169.254/latest" }),
      await createAccount(admin.cookie, { kind: "qq", name: "", appId: "1", appSecret: "s" }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
    expect(refused[0]!.json.error.message).toMatch(/verification token and encrypt key/);
    expect(refused[3]!.json.error.message).toMatch(/apiBaseUrl: .*not allowed/);
  });

  it("tests credentials against the token endpoint, edits, switches off and deletes", async () => {
    const { id } = (await createAccount(admin.cookie, { kind: "qq", name: "Tested", appId: "555", appSecret: SECRET, apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl })).json.channel;
    const params = { id };
    const test = () => call(testAccountRoute, `/api/admin/channels/${id}/test`, { cookie: admin.cookie, method: "POST", params });
    expect((await test()).json).toEqual({ ok: true, error: null });
    expect(qq.tokenRequests.at(-1)).toEqual({ appId: "555", clientSecret: SECRET });

    const patched = await call(patchAccountRoute, `/api/admin/channels/${id}`, { cookie: admin.cookie, method: "PATCH", body: { name: "Renamed", appSecret: "wrong-secret" }, params });
    expect(patched.json.channel).toMatchObject({ name: "Renamed", enabled: true });
    const failed = (await test()).json;
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/QQ access token failed: HTTP 400 \(invalid appid or secret/);
    const off = await call(patchAccountRoute, `/api/admin/channels/${id}`, { cookie: admin.cookie, method: "PATCH", body: { enabled: false }, params });
    expect(off.json.channel.enabled).toBe(false);
    expect((await call(patchAccountRoute, `/api/admin/channels/${id}`, { cookie: admin.cookie, method: "PATCH", body: { appSecret: "" }, params })).status).toBe(400);

    // Deleting the bot removes its bindings; the sessions stay with their owners.
    await db().channelBinding.create({ data: { accountId: id, externalUserId: "OPENID_GONE", userId: person.user.id } });
    const conversation = await conversationFor({
      accountId: id,
      userId: person.user.id,
      message: { kind: "qq", messageId: "m1", chat: "direct", chatId: "OPENID_GONE", senderId: "OPENID_GONE", text: "hi", attachments: [], sentAt: new Date().toISOString(), webOrigin: "http://localhost:3000" },
    });
    const sessions = await call(listSessionsRoute, "/api/sessions", { cookie: person.cookie });
    expect(sessions.json.sessions.find((entry: { id: string }) => entry.id === conversation.sessionId)).toMatchObject({ trigger: "channel", channel: { kind: "qq", accountId: id } });
    expect((await call(deleteAccountRoute, `/api/admin/channels/${id}`, { cookie: admin.cookie, method: "DELETE", params })).status).toBe(204);
    expect(await db().channelBinding.count({ where: { accountId: id } })).toBe(0);
    const after = await call(listSessionsRoute, "/api/sessions", { cookie: person.cookie });
    expect(after.json.sessions.find((entry: { id: string }) => entry.id === conversation.sessionId)).toMatchObject({ trigger: "channel", channel: { kind: "qq", accountId: null } });
    expect((await call(deleteAccountRoute, `/api/admin/channels/${id}`, { cookie: admin.cookie, method: "DELETE", params })).status).toBe(404);
  });
});

describe("channel bindings", () => {
  it("hands out one-time codes that work once, for ten minutes, and lists and unbinds only the person's own bindings", async () => {
    const account = await db().channelAccount.create({ data: { kind: "QQ", name: "Codes", appId: "1", secretsSealed: "v1:unused" } });
    const created = await call(createCodeRoute, "/api/me/channel-bindings/code", { cookie: person.cookie, method: "POST" });
    expect(created.status).toBe(201);
    expect(created.json.code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    const minutes = (Date.parse(created.json.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    expect(JSON.stringify(await db().channelBindingCode.findMany())).not.toContain(created.json.code);

    const bound = await redeemBindingCode({ accountId: account.id, externalUserId: "OPENID_P", code: ` ${created.json.code.toLowerCase().replace("-", "")} ` });
    expect(bound).toMatchObject({ userId: person.user.id, email: person.user.email });
    await expect(redeemBindingCode({ accountId: account.id, externalUserId: "OPENID_Q", code: created.json.code })).rejects.toThrow(/not valid/);
    const late = await bindingCode(person.cookie);
    await db().channelBindingCode.updateMany({ where: { userId: person.user.id, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    await expect(redeemBindingCode({ accountId: account.id, externalUserId: "OPENID_Q", code: late })).rejects.toThrow(/older than ten minutes/);

    const other = await createUser();
    const listed = await call(listBindingsRoute, "/api/me/channel-bindings", { cookie: person.cookie });
    expect(listed.json.bindings).toEqual([{ id: expect.any(String), kind: "qq", accountName: "Codes", externalUserId: "OPENID_P", createdAt: expect.any(String) }]);
    expect((await call(listBindingsRoute, "/api/me/channel-bindings", { cookie: other.cookie })).json.bindings).toEqual([]);
    const bindingId = listed.json.bindings[0].id;
    expect((await call(unbindRoute, `/api/me/channel-bindings/${bindingId}`, { cookie: other.cookie, method: "DELETE", params: { id: bindingId } })).status).toBe(404);
    expect((await call(unbindRoute, `/api/me/channel-bindings/${bindingId}`, { cookie: person.cookie, method: "DELETE", params: { id: bindingId } })).status).toBe(204);
    expect(await db().channelBinding.count({ where: { accountId: account.id } })).toBe(0);
  });

  it("limits wrong codes per sender", async () => {
    const account = await db().channelAccount.create({ data: { kind: "QQ", name: "Guesses", appId: "1", secretsSealed: "v1:unused" } });
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(redeemBindingCode({ accountId: account.id, externalUserId: "GUESSER", code: `AAAA-AAA${attempt + 2}` })).rejects.toThrow(/not valid/);
    }
    const code = await bindingCode(person.cookie);
    // Even the right code is refused while the sender is locked out.
    await expect(redeemBindingCode({ accountId: account.id, externalUserId: "GUESSER", code })).rejects.toThrow(/Too many wrong binding codes/);
    await expect(redeemBindingCode({ accountId: account.id, externalUserId: "SOMEONE_ELSE", code })).resolves.toMatchObject({ userId: person.user.id });
  });
});

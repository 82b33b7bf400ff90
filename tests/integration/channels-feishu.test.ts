import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jobCatalog } from "@/lib/app/job-catalog";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { writeChronosConfig } from "../support/chronos";
import { bindingCode, createChannelAccount, feishuMessage, nowSeconds, postFeishu, waitForCount } from "../support/channels";
import { encryptFeishuEvent, signFeishuEvent, startFakeFeishu, type TFakeFeishu } from "../support/fake-feishu";
import { createUser } from "../support/http";
import { startTestRunner, waitUntil } from "../support/jobs";

/**
 * Feishu end to end: encrypted, signed events to the real route (the signature over the raw bytes,
 * the verification token inside), the channel job on the embedded runner, the scripted model, and
 * replies to a fake Feishu open API over real HTTP.
 */
writeChronosConfig({ "channels.allowedPrivateHosts": ["127.0.0.1"], "jobs.retryBaseDelayMs": 20 });

const APP_ID = "cli_a1b2c3d4";
const SECRET = "feishuAppSecret0123";
const TOKEN = "verificationTokenXYZ";
const KEY = "encryptKey-0123456789";

let fake: TFakeLlm;
let feishu: TFakeFeishu;
let runner: TJobRunner;
let admin: Awaited<ReturnType<typeof createUser>>;
let accountId: string;

beforeAll(async () => {
  fake = await startFakeLlm();
  feishu = await startFakeFeishu({ appId: APP_ID, secret: SECRET });
  runner = await startTestRunner({ jobs: jobCatalog, concurrency: 10, cron: false, leaseMs: 30_000 });
  admin = await createUser({ role: "ADMIN" });
  accountId = (
    await createChannelAccount(admin.cookie, { kind: "feishu", name: "Lark bot", appId: APP_ID, appSecret: SECRET, verificationToken: TOKEN, encryptKey: KEY, apiBaseUrl: feishu.apiBaseUrl })
  ).id;
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await feishu.close();
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  feishu.reset();
  clearProviderEnvironment();
});

async function boundFeishuUser(openId: string) {
  const user = await createUser();
  const code = await bindingCode(user.cookie);
  const before = feishu.sent.length;
  await postFeishu(accountId, feishuMessage({ token: TOKEN, openId, text: `/bind ${code}` }), { encryptKey: KEY });
  await waitForCount(() => feishu.sent, before + 1, "the bind confirmation");
  expect(feishu.sent.at(-1)!.text).toContain(user.user.email);
  return user;
}

describe("Feishu events", () => {
  it("answers url_verification when it is encrypted with the bot's key and carries its token, signed or not", async () => {
    const challenge = { challenge: "ajls384kdjx98XX", token: TOKEN, type: "url_verification" };
    expect((await postFeishu(accountId, challenge, { encryptKey: KEY, sign: false })).json).toEqual({ challenge: "ajls384kdjx98XX" });
    expect((await postFeishu(accountId, challenge, { encryptKey: KEY })).json).toEqual({ challenge: "ajls384kdjx98XX" });
    // Plain and unsigned proves nothing; a wrong token or key is someone else's app.
    expect((await postFeishu(accountId, challenge, { encryptKey: KEY, encrypt: false, sign: false })).status).toBe(401);
    expect((await postFeishu(accountId, { ...challenge, token: "other" }, { encryptKey: KEY, sign: false })).status).toBe(401);
    expect((await postFeishu(accountId, challenge, { encryptKey: "another app's key", sign: false })).status).toBe(401);
  });

  it("refuses a tampered body, a wrong key, missing headers, a stale timestamp and a wrong token with 401, and stores nothing", async () => {
    const before = (await db().channelAccount.findUniqueOrThrow({ where: { id: accountId } })).rejectedCount;
    const event = feishuMessage({ token: TOKEN, openId: "ou_tamper", text: "hello" });
    const body = JSON.stringify({ encrypt: encryptFeishuEvent(JSON.stringify(event), KEY) });
    const timestamp = nowSeconds();
    const signature = signFeishuEvent(timestamp, "nonce", KEY, body);
    const headers = { "x-lark-request-timestamp": timestamp, "x-lark-request-nonce": "nonce", "x-lark-signature": signature };
    // The same JSON with different bytes (a space) is a different body: the signature is over the bytes.
    const reserialised = await postFeishu(accountId, event, { encryptKey: KEY, rawBody: body.replace('{"encrypt":', '{ "encrypt":'), headers });
    const wrongKey = await postFeishu(accountId, event, { encryptKey: "another app's key" });
    const missing = await postFeishu(accountId, event, { encryptKey: KEY, headers: { "x-lark-signature": "" } });
    const unsigned = await postFeishu(accountId, event, { encryptKey: KEY, sign: false });
    const stale = await postFeishu(accountId, event, { encryptKey: KEY, timestamp: nowSeconds(-301) });
    const wrongToken = await postFeishu(accountId, feishuMessage({ token: "another app", openId: "ou_tamper", text: "hello" }), { encryptKey: KEY });
    for (const response of [reserialised, wrongKey, missing, unsigned, stale, wrongToken]) expect(response.status, JSON.stringify(response.json)).toBe(401);
    expect((await postFeishu(accountId, event, { encryptKey: KEY, rawBody: body, headers })).status).toBe(200);
    const stored = await db().channelAccount.findUniqueOrThrow({ where: { id: accountId } });
    expect(stored.rejectedCount - before).toBe(6);
    expect(await db().channelEvent.count({ where: { accountId } })).toBe(1);
    // The sender is not bound: one instruction, no run.
    await waitForCount(() => feishu.sent, 1, "the instruction");
    expect(feishu.sent[0]!.text).toMatch(/\/bind <code>/);
  });

  it("runs a direct message of a bound user and replies to it; the same event_id runs once", async () => {
    await boundFeishuUser("ou_alice");
    fake.script([{ text: "你好, Alice." }]);
    const event = feishuMessage({ token: TOKEN, openId: "ou_alice", text: "你好" });
    const [first, second] = await Promise.all([postFeishu(accountId, event, { encryptKey: KEY }), postFeishu(accountId, event, { encryptKey: KEY })]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitForCount(() => feishu.sent, 2, "the answer");
    expect(feishu.sent[1]).toMatchObject({ messageId: event.event.message.message_id, text: "你好, Alice.", body: { msg_type: "text" } });
    // The token from the bind confirmation's reply is still good: no second token request.
    expect(feishu.sent[1]!.authorization).toBe(feishu.sent[0]!.authorization);
    expect(feishu.sent[1]!.authorization).toMatch(/^Bearer t-/);
    expect(feishu.tokenRequests.length).toBeLessThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests).toHaveLength(1);
  });

  it("answers group messages that mention the bot, without the mention key, and ignores others", async () => {
    await boundFeishuUser("ou_bob");
    fake.script([{ text: "Noted." }]);
    await postFeishu(accountId, feishuMessage({ token: TOKEN, openId: "ou_bob", chat: "group", chatId: "oc_team", text: "people talking among themselves" }), { encryptKey: KEY });
    const mentioned = feishuMessage({ token: TOKEN, openId: "ou_bob", chat: "group", chatId: "oc_team", text: "@_user_1 remember the launch date", mentions: ["@_user_1"] });
    await postFeishu(accountId, mentioned, { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 2, "the answer");
    expect(feishu.sent[1]).toMatchObject({ messageId: mentioned.event.message.message_id, text: "Noted." });
    expect(fake.requests).toHaveLength(1);
    const seen = JSON.stringify(fake.requests[0]!.body.messages);
    expect(seen).toContain("remember the launch date");
    expect(seen).not.toContain("@_user_1");
    expect(seen).not.toContain("people talking");
  });

  it("ignores group messages that mention only someone else, and asks Feishu for the bot's open_id once", async () => {
    await boundFeishuUser("ou_dave");
    fake.script([{ text: "On it." }]);
    const before = feishu.sent.length;
    const alice = { key: "@_user_1", openId: "ou_alice_person", name: "Alice" };
    const others = feishuMessage({ token: TOKEN, openId: "ou_dave", chat: "group", chatId: "oc_ops", text: "@_user_1 can you check the deploy", mentions: [alice] });
    // Not even an unbound sender's instruction goes to a message meant for someone else.
    const stranger = feishuMessage({ token: TOKEN, openId: "ou_stranger", chat: "group", chatId: "oc_ops", text: "@_user_1 hi", mentions: [alice] });
    expect((await postFeishu(accountId, others, { encryptKey: KEY })).status).toBe(200);
    expect((await postFeishu(accountId, stranger, { encryptKey: KEY })).status).toBe(200);
    const both = feishuMessage({ token: TOKEN, openId: "ou_dave", chat: "group", chatId: "oc_ops", text: "@_user_1 @_user_2 summarise the deploy", mentions: [alice, "@_user_2"] });
    await postFeishu(accountId, both, { encryptKey: KEY });
    await waitForCount(() => feishu.sent, before + 1, "the answer");
    // Every channel job has finished: nothing else is coming.
    await waitUntil(async () => (await db().jobRun.count({ where: { jobId: "channels.message", status: { in: ["QUEUED", "RUNNING", "SLEEPING"] } } })) === 0, "the channel jobs to end", 30_000);
    expect(feishu.sent.slice(before)).toHaveLength(1);
    expect(feishu.sent.at(-1)).toMatchObject({ messageId: both.event.message.message_id, text: "On it." });
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("summarise the deploy");
    expect(JSON.stringify(fake.requests[0]!.body.messages)).not.toContain("check the deploy");
    expect(feishu.botInfoRequests).toBeLessThanOrEqual(1);
  });

  it("retries a reply that Feishu rate-limited (429)", async () => {
    await boundFeishuUser("ou_carol");
    feishu.failNextReplies([{ status: 429, body: { code: 99991400, msg: "request trigger frequency limit" }, headers: { "retry-after": "0" } }]);
    fake.script([{ text: "Here it is." }]);
    await postFeishu(accountId, feishuMessage({ token: TOKEN, openId: "ou_carol", text: "hi" }), { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 2, "the answer");
    expect(feishu.sent[1]!.text).toBe("Here it is.");
    const tries = feishu.attempts.filter((attempt) => attempt.text === "Here it is.");
    expect(tries).toHaveLength(2);
    expect(tries[0]!.body.uuid).toBe(tries[1]!.body.uuid);
  });
});

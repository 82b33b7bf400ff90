import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PATCH as patchAccountRoute } from "@/app/api/admin/channels/[id]/route";
import { GET as getStepsRoute } from "@/app/api/sessions/[id]/steps/route";
import { GET as listSessionsRoute } from "@/app/api/sessions/route";
import { jobCatalog } from "@/lib/app/job-catalog";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { waitForRun } from "@/lib/runs/local-runs";
import { stopSessionRun } from "@/lib/runs/stop-run";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, useFakeProvider } from "../support/chat";
import { writeChronosConfig } from "../support/chronos";
import { bindingCode, createChannelAccount, nowSeconds, postQq, qqDirectMessage, qqGroupMessage, waitForCount } from "../support/channels";
import { signQqCallback, startFakeQq, type TFakeQq } from "../support/fake-qq";
import { call, createUser } from "../support/http";
import { startTestRunner, waitUntil } from "../support/jobs";
import { readUiStream } from "../support/ui-stream";

/**
 * QQ end to end: signed callbacks to the real route, the channel job on the embedded runner, the
 * scripted model, and replies to a fake QQ OpenAPI over real HTTP (its address allowed through
 * channels.allowedPrivateHosts, as an administrator would allow a gateway).
 */
writeChronosConfig({
  "channels.allowedPrivateHosts": ["127.0.0.1"],
  "channels.qq.splitCharacters": 500,
  "jobs.retryBaseDelayMs": 20,
  "runs.maxConcurrentPerUser": 50,
});

const APP_ID = "102030405";
const SECRET = "qqBotSecret0123456789abcdefXYZ";

let fake: TFakeLlm;
let qq: TFakeQq;
let runner: TJobRunner;
let admin: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  fake = await startFakeLlm();
  qq = await startFakeQq({ appId: APP_ID, secret: SECRET });
  // A lease long enough for a machine busy with other test files (a lost lease makes a job run start over).
  runner = await startTestRunner({ jobs: jobCatalog, concurrency: 25, cron: false, leaseMs: 30_000 });
  admin = await createUser({ role: "ADMIN" });
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await qq.close();
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  qq.reset();
  clearProviderEnvironment();
});

async function newAccount(extra: Record<string, unknown> = {}) {
  return createChannelAccount(admin.cookie, { kind: "qq", name: "Helper", appId: APP_ID, appSecret: SECRET, apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl, ...extra });
}

/** A user bound to `openid` on the account through the real flow: a code from Settings, then /bind in a direct chat. */
async function boundUser(accountId: string, openid: string) {
  const user = await createUser();
  const code = await bindingCode(user.cookie);
  const before = qq.sent.length;
  expect((await postQq(accountId, qqDirectMessage({ openid, content: `/bind ${code}` }), { secret: SECRET })).status).toBe(200);
  await waitForCount(() => qq.sent, before + 1, "the bind confirmation");
  expect(qq.sent.at(-1)!.body.content).toContain(user.user.email);
  return { ...user, usedCode: code };
}

async function sessionOf(userId: string) {
  return db().chatSession.findFirstOrThrow({ where: { userId, trigger: "CHANNEL" }, orderBy: { createdAt: "desc" } });
}

describe("QQ callbacks", () => {
  it("refuses bad signatures, missing headers and stale timestamps with 401, storing nothing but a counted rejection", async () => {
    const account = await newAccount();
    const message = qqDirectMessage({ openid: "OPENID_A", content: "hello" });
    const body = JSON.stringify(message);
    const timestamp = nowSeconds();
    // Signed as sent, then one byte changed on the way.
    const tampered = await postQq(account.id, message, { secret: SECRET, timestamp, rawBody: body.replace("hello", "hellO"), headers: { "x-signature-ed25519": signQqCallback(SECRET, timestamp, body) } });
    const wrongKey = await postQq(account.id, message, { secret: "another-bot-secret-of-32-bytes!!" });
    const missing = await postQq(account.id, message, { secret: SECRET, headers: { "x-signature-ed25519": "" } });
    const noTimestamp = await postQq(account.id, message, { secret: SECRET, headers: { "x-signature-timestamp": "" } });
    const stale = await postQq(account.id, message, { secret: SECRET, timestamp: nowSeconds(-301) });
    const future = await postQq(account.id, message, { secret: SECRET, timestamp: nowSeconds(301) });
    for (const response of [tampered, wrongKey, missing, noTimestamp, stale, future]) expect(response.status, JSON.stringify(response.json)).toBe(401);
    const stored = await db().channelAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(stored.rejectedCount).toBe(6);
    expect(stored.lastRejectedAt).not.toBeNull();
    expect(await db().channelEvent.count({ where: { accountId: account.id } })).toBe(0);
    expect(fake.requests).toHaveLength(0);

    // Unknown account: 404; switched off: 403, before anything is read.
    expect((await postQq("6b1f0a52-0000-4000-8000-000000000000", message, { secret: SECRET })).status).toBe(404);
    expect((await postQq("not-a-uuid", message, { secret: SECRET })).status).toBe(404);
    await call(patchAccountRoute, `/api/admin/channels/${account.id}`, { cookie: admin.cookie, method: "PATCH", body: { enabled: false }, params: { id: account.id } });
    expect((await postQq(account.id, message, { secret: SECRET })).status).toBe(403);
  });

  it("answers the callback validation (op 13) with the published signature, and only when it is signed", async () => {
    // QQ's published vector: secret DG5g3B4j9X2KOErG, event_ts 1725442341, plain_token Arq0D5A61EgUu4OxUvOp.
    const account = await createChannelAccount(admin.cookie, { kind: "qq", name: "Vector", appId: "11111111", appSecret: "DG5g3B4j9X2KOErG", apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl });
    const validation = { d: { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" }, op: 13 };
    const answered = await postQq(account.id, validation, { secret: "DG5g3B4j9X2KOErG" });
    expect(answered.status).toBe(200);
    expect(answered.json).toEqual({
      plain_token: "Arq0D5A61EgUu4OxUvOp",
      signature: "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
    });
    // Unsigned, it would be a signing oracle for forged dispatches.
    expect((await postQq(account.id, validation, { secret: "someone else's secret" })).status).toBe(401);
  });

  it("gives an unbound sender one short instruction and no run", async () => {
    const account = await newAccount();
    const acked = await postQq(account.id, qqDirectMessage({ openid: "STRANGER", content: "delete everything" }), { secret: SECRET });
    expect(acked.json).toEqual({ op: 12, d: 0 });
    await waitForCount(() => qq.sent, 1, "the instruction");
    expect(qq.sent).toHaveLength(1);
    expect(qq.sent[0]).toMatchObject({ scope: "user", target: "STRANGER", body: { msg_seq: 1, msg_type: 0 } });
    expect(qq.sent[0]!.body.content).toMatch(/Settings → Channels.*\/bind <code>/);
    expect(fake.requests).toHaveLength(0);
    expect(await db().channelConversation.count({ where: { accountId: account.id } })).toBe(0);
  });

  it("binds with a one-time code, runs a message as the bound user and replies; a repeated delivery runs once", async () => {
    const account = await newAccount();
    const user = await boundUser(account.id, "OPENID_ALICE");
    // A used code works no more, typed in any case; a new code replaces the unused ones.
    await postQq(account.id, qqDirectMessage({ openid: "OPENID_MALLORY", content: `/bind ${user.usedCode.toLowerCase()}` }), { secret: SECRET });
    await waitForCount(() => qq.sent, 2, "the refusal");
    expect(qq.sent[1]!.body.content).toMatch(/not valid/);
    expect(await db().channelBinding.count({ where: { accountId: account.id, externalUserId: "OPENID_MALLORY" } })).toBe(0);
    await bindingCode(user.cookie);
    await bindingCode(user.cookie);
    expect(await db().channelBindingCode.count({ where: { userId: user.user.id, usedAt: null } })).toBe(1);

    fake.script([{ text: "Hello Alice, the sky is blue." }]);
    const message = qqDirectMessage({ openid: "OPENID_ALICE", content: "What colour is the sky?" });
    const [first, second] = await Promise.all([postQq(account.id, message, { secret: SECRET }), postQq(account.id, message, { secret: SECRET })]);
    expect([first.json, second.json]).toEqual([{ op: 12, d: 0 }, { op: 12, d: 0 }]);
    await waitForCount(() => qq.sent, 3, "the answer");
    expect(qq.sent[2]).toMatchObject({ scope: "user", target: "OPENID_ALICE", body: { content: "Hello Alice, the sky is blue.", msg_id: message.d.id, msg_seq: 1 } });
    expect(qq.sent[2]!.authorization).toMatch(/^QQBot /);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("What colour is the sky?");
    expect(await db().channelEvent.count({ where: { accountId: account.id, externalId: message.d.id } })).toBe(1);

    const listed = await call(listSessionsRoute, "/api/sessions", { cookie: user.cookie });
    const session = listed.json.sessions.find((entry: { trigger: string }) => entry.trigger === "channel");
    expect(session).toMatchObject({ trigger: "channel", channel: { kind: "qq", accountId: account.id }, title: expect.stringContaining("sky") });
    const stored = await db().channelAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(stored.lastEventAt).not.toBeNull();
    expect(stored.lastReplyAt).not.toBeNull();
    // A second delivery later (the platform retrying) is acknowledged and still runs nothing.
    expect((await postQq(account.id, message, { secret: SECRET })).json).toEqual({ op: 12, d: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests).toHaveLength(1);
  });

  it("acknowledges at once while the agent takes 30 s", async () => {
    const account = await newAccount();
    const user = await boundUser(account.id, "OPENID_SLOW");
    fake.script([{ text: "Finally.", delayMs: 30_000 }]);
    const acked = await postQq(account.id, qqDirectMessage({ openid: "OPENID_SLOW", content: "take your time" }), { secret: SECRET });
    expect(acked.json).toEqual({ op: 12, d: 0 });
    // The model has the request and has not answered; the ack came anyway.
    await waitForCount(() => fake.requests, 1, "the model call");
    const session = await sessionOf(user.user.id);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: session.id } })).status).toBe("RUNNING");
    expect(qq.sent).toHaveLength(1);
    await stopSessionRun({ userId: user.user.id, sessionId: session.id });
    await waitForRun(session.id);
  }, 60_000);

  it("keeps the answer in the web session with a note when the reply window has closed", async () => {
    const account = await newAccount();
    const user = await boundUser(account.id, "OPENID_LATE");
    fake.script([{ text: "An answer nobody can receive in QQ." }]);
    await postQq(account.id, qqDirectMessage({ openid: "OPENID_LATE", content: "old question", sentAt: new Date(Date.now() - 61 * 60_000) }), { secret: SECRET });
    await waitForCount(() => fake.requests, 1, "the model call");
    const session = await sessionOf(user.user.id);
    await waitUntil(async () => (await db().step.count({ where: { sessionId: session.id, type: "SYSTEM_NOTE", name: "channel" } })) === 1, "the note");
    expect(qq.attempts.filter((attempt) => attempt.target === "OPENID_LATE")).toHaveLength(1);
    const steps = await call(getStepsRoute, `/api/sessions/${session.id}/steps`, { cookie: user.cookie, params: { id: session.id } });
    expect(JSON.stringify(steps.json)).toContain("An answer nobody can receive in QQ.");
    expect(JSON.stringify(steps.json)).toMatch(/Not sent to QQ/);
  });

  it("splits a long answer into msg_seq 1..5 and never attempts a sixth reply", async () => {
    const account = await newAccount();
    await boundUser(account.id, "OPENID_LONG");
    const paragraphs = Array.from({ length: 8 }, (_, index) => `Paragraph ${index + 1}: ${"words ".repeat(70).trim()}.`);
    fake.script([{ text: paragraphs.join("\n\n") }]);
    const message = qqDirectMessage({ openid: "OPENID_LONG", content: "tell me a lot" });
    await postQq(account.id, message, { secret: SECRET });
    await waitForCount(() => qq.sent, 6, "five parts");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const parts = qq.attempts.filter((attempt) => attempt.body.msg_id === message.d.id);
    expect(parts.map((part) => part.body.msg_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(parts.every((part) => part.body.content.length <= 500)).toBe(true);
    expect(parts[0]!.body.content).toMatch(/^Paragraph 1:/);
    expect(parts[4]!.body.content).toMatch(/the rest of the answer is in xclaw: http:\/\/localhost:3000\/chat\/[0-9a-f-]{36}$/);
  });

  it("fetches the access token once for 20 concurrent events, and takes expires_in as a number too", async () => {
    const account = await newAccount({ name: "Busy bot" });
    const user = await boundUser(account.id, "MEMBER_BUSY");
    qq.reset();
    const fresh = await newAccount({ name: "Busy bot 2" });
    await db().channelBinding.create({ data: { accountId: fresh.id, externalUserId: "MEMBER_BUSY", userId: user.user.id } });
    qq.tokenDelayMs = 300;
    qq.tokenLifetime = 7200;
    fake.script(() => ({ text: "ok" }));
    const acks = await Promise.all(Array.from({ length: 20 }, (_, index) => postQq(fresh.id, qqGroupMessage({ group: `GROUP_${index}`, member: "MEMBER_BUSY", content: `question ${index}` }), { secret: SECRET })));
    expect(acks.every((ack) => ack.status === 200)).toBe(true);
    await waitForCount(() => qq.sent, 20, "twenty answers", 60_000);
    expect(qq.tokenRequests).toHaveLength(1);
    expect(new Set(qq.sent.map((send) => send.target)).size).toBe(20);
    expect(qq.sent.every((send) => send.scope === "group")).toBe(true);
  }, 90_000);

  it("refreshes a token before it expires", async () => {
    qq.tokenLifetime = "51";
    const account = await newAccount({ name: "Short tokens" });
    await boundUser(account.id, "OPENID_TOKEN");
    fake.script([{ text: "first" }, { text: "second" }]);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await postQq(account.id, qqDirectMessage({ openid: "OPENID_TOKEN", content: "again" }), { secret: SECRET });
    await waitForCount(() => qq.sent, 2, "the answer");
    expect(qq.tokenRequests).toHaveLength(2);
    expect(new Set(qq.sent.map((send) => send.authorization)).size).toBe(2);
  });

  it("retries a reply after QQ's rate limit (22009) and a server error, with the same msg_seq", async () => {
    const account = await newAccount();
    await boundUser(account.id, "OPENID_RETRY");
    const attemptsBefore = qq.attempts.length;
    qq.failNextReplies([
      { status: 400, body: { code: 22009, message: "msg limit exceed" } },
      { status: 502, body: { code: 500, message: "bad gateway" } },
    ]);
    fake.script([{ text: "Eventually delivered." }]);
    const message = qqDirectMessage({ openid: "OPENID_RETRY", content: "hello" });
    await postQq(account.id, message, { secret: SECRET });
    await waitForCount(() => qq.sent, 2, "the answer", 30_000);
    const tries = qq.attempts.slice(attemptsBefore);
    expect(tries.map((attempt) => attempt.body.msg_seq)).toEqual([1, 1, 1]);
    expect(qq.sent.at(-1)!.body.content).toBe("Eventually delivered.");
    expect(fake.requests).toHaveLength(1);
  }, 60_000);

  it("serves only bound members of a group, each in their own session", async () => {
    const account = await newAccount();
    const alice = await boundUser(account.id, "MEMBER_A");
    const bob = await boundUser(account.id, "MEMBER_B");
    fake.script((request) => ({ text: `seen ${JSON.stringify(request.body.messages).includes("apple") ? "apple" : "nothing"}` }));
    const sentBefore = qq.sent.length;
    await postQq(account.id, qqGroupMessage({ group: "GROUP_1", member: "MEMBER_A", content: "<@!bot> my password hint is apple" }), { secret: SECRET });
    await waitForCount(() => qq.sent, sentBefore + 1, "Alice's answer");
    await postQq(account.id, qqGroupMessage({ group: "GROUP_1", member: "MEMBER_B", content: "what did the others say?" }), { secret: SECRET });
    await waitForCount(() => qq.sent, sentBefore + 2, "Bob's answer");
    await postQq(account.id, qqGroupMessage({ group: "GROUP_1", member: "MEMBER_C", content: "and me?" }), { secret: SECRET });
    await waitForCount(() => qq.sent, sentBefore + 3, "the stranger's instruction");
    const answers = qq.sent.slice(sentBefore);
    expect(answers.map((send) => [send.scope, send.target])).toEqual([
      ["group", "GROUP_1"],
      ["group", "GROUP_1"],
      ["group", "GROUP_1"],
    ]);
    expect(answers.map((send) => send.body.content)).toEqual(["seen apple", "seen nothing", expect.stringMatching(/\/bind <code>/)]);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("my password hint is apple");
    expect(JSON.stringify(fake.requests[0]!.body.messages)).not.toContain("<@!bot>");
    const [aliceSession, bobSession] = [await sessionOf(alice.user.id), await sessionOf(bob.user.id)];
    expect(aliceSession.id).not.toBe(bobSession.id);
    expect(await db().step.count({ where: { sessionId: bobSession.id, input: { path: ["text"], string_contains: "apple" } } })).toBe(0);
  });

  it("links an approval to the web card, and sends the rest once it is decided on the web", async () => {
    const account = await newAccount();
    const user = await boundUser(account.id, "OPENID_APPROVER");
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "notes.md", content: "hello" } }] }, { text: "Saved your notes." }]);
    const message = qqDirectMessage({ openid: "OPENID_APPROVER", content: "save a note" });
    const sentBefore = qq.sent.length;
    await postQq(account.id, message, { secret: SECRET });
    await waitForCount(() => qq.sent, sentBefore + 1, "the approval link");
    const session = await sessionOf(user.user.id);
    expect(qq.sent.at(-1)!.body).toMatchObject({ msg_id: message.d.id, msg_seq: 1 });
    expect(qq.sent.at(-1)!.body.content).toContain(`Waiting for your approval to run write_file`);
    expect(qq.sent.at(-1)!.body.content).toContain(`http://localhost:3000/chat/${session.id}`);
    // Approving from QQ is not a thing: a message would deny and move on. The owner decides on the web.
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId: session.id, status: "PENDING" } });
    await waitUntil(async () => !!(await db().channelConversation.findFirst({ where: { sessionId: session.id, awaitingApprovalId: approval.id } })), "the wait");
    const decided = await readUiStream(await decideResponse(user.cookie, session.id, approval.id, { decision: "approve" }));
    expect(decided.text).toContain("Saved your notes.");
    await waitForCount(() => qq.sent, sentBefore + 2, "the rest of the answer");
    expect(qq.sent.at(-1)!.body).toMatchObject({ msg_id: message.d.id, msg_seq: 2, content: "Saved your notes." });
  });

  it("answers /help, /steps, /new and /stop in the chat", async () => {
    const account = await newAccount();
    const user = await boundUser(account.id, "OPENID_COMMANDS");
    let sent = qq.sent.length;
    const say = async (content: string) => {
      await postQq(account.id, qqDirectMessage({ openid: "OPENID_COMMANDS", content }), { secret: SECRET });
      await waitForCount(() => qq.sent, ++sent, content);
      return qq.sent.at(-1)!.body.content;
    };
    fake.script([{ text: "ok" }]);
    const help = await say("/help");
    for (const command of ["/bind <code>", "/new", "/steps [n]", "/stop", "/skills"]) expect(help).toContain(command);
    expect(help).not.toContain("/rollback");
    expect(await say("/rollback s0001")).toMatch(/^Unknown command \/rollback/);
    expect(await say("!ls")).toBe("ok");
    expect(fake.requests.at(-1)!.body.messages.at(-1).content).toContain("!ls");
    expect(await say("/steps")).toMatch(/s0001 /);
    const first = await sessionOf(user.user.id);
    expect(await say("/new")).toMatch(/Started a new conversation/);
    expect((await sessionOf(user.user.id)).id).not.toBe(first.id);
    expect(await say("/stop")).toBe("Nothing is running.");
  });
});

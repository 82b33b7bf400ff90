import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteChannelRoute, PATCH as patchChannel } from "@/app/api/notification-channels/[id]/route";
import { POST as testChannelRoute } from "@/app/api/notification-channels/[id]/test/route";
import { GET as listChannelsRoute, POST as createChannelRoute } from "@/app/api/notification-channels/route";
import { POST as markReadRoute } from "@/app/api/notifications/read/route";
import { GET as listNotificationsRoute } from "@/app/api/notifications/route";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { getChannelOrThrow, openChannel } from "@/lib/notifications/channels";
import { notify } from "@/lib/notifications/notify";
import { DeliveryError, sendToChannel } from "@/lib/notifications/senders";
import { startChronosRunner, startReceiver, writeChronosConfig, type TReceiver } from "../support/chronos";
import { call, createUser } from "../support/http";
import { waitUntil } from "../support/jobs";

/**
 * Notification channels and the bell: Feishu cards signed as Feishu requires, signed generic
 * webhooks, retries with the last error shown, the SSRF guard, title dedupe, the hourly cap,
 * "send test", and tenancy. A local receiver plays Feishu and the webhook; only its exact
 * host:port is allowed although it is private.
 */
const receiver: TReceiver = await startReceiver();
writeChronosConfig({
  "chronos.notifications.allowedPrivateHosts": [`127.0.0.1:${receiver.port}`],
  "chronos.notifications.maxPerHour": 5,
  "jobs.retryBaseDelayMs": 20,
});

let runner: TJobRunner;
beforeAll(async () => {
  runner = await startChronosRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await receiver.close();
});
beforeEach(() => receiver.reset());

type TUser = Awaited<ReturnType<typeof createUser>>;

async function createChannel(user: TUser, body: Record<string, unknown>) {
  return call(createChannelRoute, "/api/notification-channels", { cookie: user.cookie, body });
}

async function deliveriesSettled(notificationId: string) {
  await waitUntil(async () => (await db().notificationDelivery.count({ where: { notificationId, status: "PENDING" } })) === 0, "deliveries to settle");
  return db().notificationDelivery.findMany({ where: { notificationId } });
}

function feishuSign(timestamp: string, secret: string): string {
  return createHmac("sha256", `${timestamp}\n${secret}`).update("").digest("base64");
}

describe("channels", () => {
  it("keeps URLs and secrets out of every answer, and another user's channel is 404", async () => {
    const owner = await createUser();
    const other = await createUser();
    const created = await createChannel(owner, { name: "Ops group", kind: "feishu", url: receiver.url("/open-apis/bot/v2/hook/9f8e7d6c-aaaa"), secret: "feishu-sign-secret" });
    expect(created.status).toBe(201);
    const { channel } = created.json;
    expect(channel).toMatchObject({ name: "Ops group", kind: "feishu", enabled: true, lastError: null, target: `http://127.0.0.1:${receiver.port}/…aaaa` });
    expect(created.json.secret).toBeUndefined();
    const listed = await call(listChannelsRoute, "/api/notification-channels", { cookie: owner.cookie });
    expect(JSON.stringify(listed.json)).not.toMatch(/9f8e7d6c|feishu-sign-secret/);
    const stored = await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } });
    expect(stored.configSealed).not.toMatch(/9f8e7d6c|feishu-sign-secret/);

    const params = { id: channel.id };
    expect((await call(patchChannel, `/api/notification-channels/${channel.id}`, { cookie: other.cookie, method: "PATCH", body: { enabled: false }, params })).status).toBe(404);
    expect((await call(testChannelRoute, `/api/notification-channels/${channel.id}/test`, { cookie: other.cookie, method: "POST", params })).status).toBe(404);
    expect((await call(deleteChannelRoute, `/api/notification-channels/${channel.id}`, { cookie: other.cookie, method: "DELETE", params })).status).toBe(404);
    expect((await call(listChannelsRoute, "/api/notification-channels", { cookie: other.cookie })).json.channels).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
    expect((await call(deleteChannelRoute, `/api/notification-channels/${channel.id}`, { cookie: owner.cookie, method: "DELETE", params })).status).toBe(204);
  });

  it.each([
    ["http://127.0.0.1:1/hook", /is not allowed: .*loopback/],
    ["http://169.254.169.254/latest/meta-data", /is not allowed/],
    ["http://10.20.30.40/hook", /is not allowed: .*private/],
    ["http://[::1]:8080/hook", /is not allowed/],
    ["file:///etc/passwd", /file: URLs are not allowed/],
  ])("refuses the private or non-http URL %s (SSRF guard)", async (url, message) => {
    const user = await createUser();
    const response = await createChannel(user, { name: "bad", kind: "webhook", url });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toMatch(message);
  });

  it("refuses a private address on send too, as a final (not retried) failure", async () => {
    const attempt = sendToChannel(
      { id: "c", userId: "u", name: "sneaky", kind: "webhook", config: { url: "http://127.0.0.1:1/elsewhere", secret: "s" } },
      { id: "n", level: "info", title: "t", message: "m", source: "test", sessionId: null, createdAt: new Date() },
      { delivery: "d" },
    );
    await expect(attempt).rejects.toBeInstanceOf(DeliveryError);
    await expect(attempt).rejects.toMatchObject({ retriable: false });
  });
});

describe("delivery", () => {
  it("posts a Feishu card in the level's colour, signed with timestamp + secret, and marks it sent", async () => {
    const user = await createUser();
    const { channel } = (await createChannel(user, { name: "Feishu", kind: "feishu", url: receiver.url("/open-apis/bot/v2/hook/abc"), secret: "s3cret" })).json;
    const result = await notify({ userId: user.user.id, level: "critical", title: "Database down", message: "db-1 refuses connections", source: "job db", channelIds: [channel.id] });
    expect(result.status).toBe("sent");
    const notificationId = result.status === "sent" ? result.notification.id : "";
    const [delivery] = await deliveriesSettled(notificationId);
    expect(delivery).toMatchObject({ status: "SENT", attempts: 1, lastError: null });
    const posted = receiver.requests[0]!.json as { timestamp: string; sign: string; msg_type: string; card: { header: { template: string; title: { content: string } } } };
    expect(posted.msg_type).toBe("interactive");
    expect(posted.card.header).toMatchObject({ template: "red", title: { content: "[xclaw] Database down" } });
    expect(Math.abs(Number(posted.timestamp) - Date.now() / 1000)).toBeLessThan(3_600);
    expect(posted.sign).toBe(feishuSign(posted.timestamp, "s3cret"));
    expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).lastSuccessAt).not.toBeNull();
  });

  it("signs generic webhooks (sha256 HMAC of timestamp.body) with the secret shown once", async () => {
    const user = await createUser();
    const created = (await createChannel(user, { name: "Hook", kind: "webhook", url: receiver.url("/incoming") })).json;
    expect(created.secret).toMatch(/^whsec_/);
    const result = await notify({ userId: user.user.id, level: "warning", title: "Queue backlog", message: "12k jobs waiting", source: "chat", channelIds: [created.channel.id] });
    await deliveriesSettled(result.status === "sent" ? result.notification.id : "");
    const request = receiver.requests[0]!;
    expect(request.json).toMatchObject({ level: "warning", title: "Queue backlog", message: "12k jobs waiting", source: "chat" });
    const timestamp = request.headers["x-xclaw-timestamp"]!;
    expect(request.headers["x-xclaw-signature"]).toBe(`sha256=${createHmac("sha256", created.secret).update(`${timestamp}.${request.body}`).digest("hex")}`);
    expect(request.headers["x-xclaw-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("retries failures with backoff and shows the last error on the channel", async () => {
    const user = await createUser();
    const { channel } = (await createChannel(user, { name: "Flaky", kind: "webhook", url: receiver.url("/flaky") })).json;
    receiver.respond([{ status: 503, body: { error: "busy" } }, { status: 502 }]);
    const result = await notify({ userId: user.user.id, level: "info", title: "Eventually", message: "arrives", source: "chat", channelIds: [channel.id] });
    const [delivery] = await deliveriesSettled(result.status === "sent" ? result.notification.id : "");
    expect(delivery).toMatchObject({ status: "SENT", attempts: 3 });
    expect(receiver.requests).toHaveLength(3);
    const stored = await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } });
    expect(stored.lastError).toMatch(/answered HTTP 502/);
    expect(stored.lastSuccessAt).not.toBeNull();
  });

  it("gives up at once on a refusal that retrying cannot fix (Feishu: wrong signing secret)", async () => {
    const user = await createUser();
    const { channel } = (await createChannel(user, { name: "Feishu", kind: "feishu", url: receiver.url("/open-apis/bot/v2/hook/x"), secret: "wrong" })).json;
    receiver.respond([{ status: 200, body: { code: 19021, msg: "sign match fail or timestamp is not within one hour from current time" } }]);
    const result = await notify({ userId: user.user.id, level: "warning", title: "Signed wrong", message: "m", source: "chat", channelIds: [channel.id] });
    const [delivery] = await deliveriesSettled(result.status === "sent" ? result.notification.id : "");
    expect(delivery).toMatchObject({ status: "FAILED", attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    const listed = await call(listChannelsRoute, "/api/notification-channels", { cookie: user.cookie });
    expect(listed.json.channels[0].lastError).toMatch(/code 19021.*signing secret does not match/);
  });

  it("deduplicates the same title within 30 minutes and stops floods at the hourly cap", async () => {
    const user = await createUser();
    const { channel } = (await createChannel(user, { name: "Hook", kind: "webhook", url: receiver.url("/flood") })).json;
    const send = (title: string) => notify({ userId: user.user.id, level: "warning", title, message: "m", source: "chat", channelIds: [channel.id] });
    expect((await send("Same")).status).toBe("sent");
    expect((await send("Same")).status).toBe("deduplicated");
    for (const title of ["two", "three", "four", "five"]) expect((await send(title)).status).toBe("sent");
    expect(await send("six")).toEqual({ status: "capped", maxPerHour: 5 });
    expect(await db().notification.count({ where: { userId: user.user.id } })).toBe(5);
    await waitUntil(() => receiver.requests.length === 5, "five deliveries");
  });

  it("sends a test on request and records the outcome on the channel", async () => {
    const user = await createUser();
    const { channel } = (await createChannel(user, { name: "Hook", kind: "webhook", url: receiver.url("/test") })).json;
    const ok = await call(testChannelRoute, `/api/notification-channels/${channel.id}/test`, { cookie: user.cookie, method: "POST", params: { id: channel.id } });
    expect(ok.json).toMatchObject({ ok: true, error: null, channel: { lastError: null } });
    expect(receiver.requests[0]!.json).toMatchObject({ title: "Test notification", source: "test" });
    receiver.respond([{ status: 404, body: { message: "no such hook" } }]);
    const failed = await call(testChannelRoute, `/api/notification-channels/${channel.id}/test`, { cookie: user.cookie, method: "POST", params: { id: channel.id } });
    expect(failed.json.ok).toBe(false);
    expect(failed.json.error).toMatch(/answered HTTP 404: \{"message":"no such hook"\}/);
    expect(failed.json.channel.lastError).toBe(failed.json.error);
    // The test needs the sealed URL to open again: a changed NEXTAUTH_SECRET would say so.
    expect(openChannel(await getChannelOrThrow({ userId: user.user.id, channelId: channel.id })).config.url).toBe(receiver.url("/test"));
  });
});

describe("the bell", () => {
  it("lists only the caller's notifications and marks only theirs read", async () => {
    const owner = await createUser();
    const other = await createUser();
    const mine = await notify({ userId: owner.user.id, level: "info", title: "For the owner", message: "m", source: "chat", channelIds: [] });
    const theirs = await notify({ userId: other.user.id, level: "info", title: "For someone else", message: "m", source: "chat", channelIds: [] });
    const mineId = mine.status === "sent" ? mine.notification.id : "";
    const theirsId = theirs.status === "sent" ? theirs.notification.id : "";
    const listed = await call(listNotificationsRoute, "/api/notifications", { cookie: owner.cookie });
    expect(listed.json).toEqual({ unread: 1, notifications: [expect.objectContaining({ id: mineId, title: "For the owner", readAt: null, sessionId: null })] });
    const marked = await call(markReadRoute, "/api/notifications/read", { cookie: owner.cookie, body: { ids: [mineId, theirsId] } });
    expect(marked.json).toEqual({ updated: 1, unread: 0 });
    expect((await db().notification.findUniqueOrThrow({ where: { id: theirsId } })).readAt).toBeNull();
    expect((await call(markReadRoute, "/api/notifications/read", { cookie: other.cookie, body: { all: true } })).json).toEqual({ updated: 1, unread: 0 });
    expect((await call(markReadRoute, "/api/notifications/read", { cookie: owner.cookie, body: {} })).status).toBe(400);
    expect((await call(listNotificationsRoute, "/api/notifications", { cookie: "" })).status).toBe(401);
  });
});

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jobCatalog } from "@/lib/app/job-catalog";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { storeWorkspaceFile } from "@/lib/sessions/attachments";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { writeChronosConfig } from "../support/chronos";
import { bindingCode, createChannelAccount, feishuMessage, postFeishu, postQq, qqDirectMessage, qqGroupMessage, waitForCount } from "../support/channels";
import { startFakeFeishu, type TFakeFeishu } from "../support/fake-feishu";
import { startFakeQq, type TFakeQq } from "../support/fake-qq";
import { createUser } from "../support/http";
import { startTestRunner } from "../support/jobs";

/**
 * Pictures and files sent to the bots: the fake platforms serve them over real HTTP (QQ's CDN URL,
 * Feishu's message resource API), the channel job downloads them through the SSRF guard into the
 * bound person's workspace, and the scripted model's recorded request shows what the run was given.
 */
writeChronosConfig({
  "channels.allowedPrivateHosts": ["127.0.0.1"],
  "channels.attachments.maxFileBytes": 64 * 1024,
  "channels.attachments.maxFiles": 4,
  "jobs.retryBaseDelayMs": 20,
});

const QQ_APP = "102030405";
const QQ_SECRET = "qqBotSecret0123456789abcdefXYZ";
const FEISHU_APP = "cli_a1b2c3d4";
const FEISHU_SECRET = "feishuAppSecret0123";
const TOKEN = "verificationTokenXYZ";
const KEY = "encryptKey-0123456789";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const BIG = Buffer.alloc(100 * 1024, 7);

let fake: TFakeLlm;
let qq: TFakeQq;
let feishu: TFakeFeishu;
let runner: TJobRunner;
let qqAccount: string;
let feishuAccount: string;
// A file server on another loopback address, not on channels.allowedPrivateHosts.
let privateServer: http.Server;
let privateRequests = 0;

beforeAll(async () => {
  fake = await startFakeLlm();
  qq = await startFakeQq({ appId: QQ_APP, secret: QQ_SECRET });
  feishu = await startFakeFeishu({ appId: FEISHU_APP, secret: FEISHU_SECRET });
  runner = await startTestRunner({ jobs: jobCatalog, concurrency: 10, cron: false, leaseMs: 30_000 });
  const admin = await createUser({ role: "ADMIN" });
  qqAccount = (await createChannelAccount(admin.cookie, { kind: "qq", name: "QQ files", appId: QQ_APP, appSecret: QQ_SECRET, apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl })).id;
  feishuAccount = (
    await createChannelAccount(admin.cookie, { kind: "feishu", name: "Lark files", appId: FEISHU_APP, appSecret: FEISHU_SECRET, verificationToken: TOKEN, encryptKey: KEY, apiBaseUrl: feishu.apiBaseUrl })
  ).id;
  privateServer = http.createServer((_request, response) => {
    privateRequests++;
    response.writeHead(200, { "content-type": "image/png" });
    response.end(PNG);
  });
  await new Promise<void>((resolve) => privateServer.listen(0, "127.0.0.2", resolve));
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  privateServer.closeAllConnections();
  await new Promise((resolve) => privateServer.close(resolve));
  await feishu.close();
  await qq.close();
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  qq.reset();
  feishu.reset();
  clearProviderEnvironment();
});

function workspaceOf(userId: string): string {
  return path.join(process.env.XCLAW_DATA_DIR!, "workspaces", userId);
}

/** The last user message the model was sent: its text part and its image parts. */
function lastUserMessage() {
  const message = fake.requests.at(-1)!.body.messages.at(-1) as { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };
  expect(message.role).toBe("user");
  const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  return { text: parts.filter((part) => part.type === "text").map((part) => part.text).join("\n"), images: parts.filter((part) => part.type === "image_url").map((part) => part.image_url!.url) };
}

async function boundQqUser(openid: string) {
  const user = await createUser();
  const code = await bindingCode(user.cookie);
  await postQq(qqAccount, qqDirectMessage({ openid, content: `/bind ${code}` }), { secret: QQ_SECRET });
  await waitForCount(() => qq.sent, 1, "the bind confirmation");
  qq.reset();
  return user;
}

describe("QQ attachments", () => {
  it("stores pictures and files in the person's workspace under channels/<date>/ and gives them to the run, the picture as an image", async () => {
    const user = await boundQqUser("OPENID_FILES");
    const sentAt = new Date();
    const folder = `channels/${sentAt.toISOString().slice(0, 10)}`;
    const attachments = [
      { content_type: "image/png", filename: "photo.png", url: qq.serveFile("photo", PNG, { contentType: "image/png" }), size: PNG.length, width: 1, height: 1 },
      // The sender's file name tries to leave the folder and the workspace.
      { content_type: "text/plain", filename: "..\\..\\../../outside.txt", url: qq.serveFile("notes", Buffer.from("quarterly numbers\n"), { contentType: "text/plain" }), size: 18 },
    ];
    fake.script([{ text: "A tiny picture and your numbers." }]);
    expect((await postQq(qqAccount, qqDirectMessage({ openid: "OPENID_FILES", content: "what are these?", sentAt, attachments }), { secret: QQ_SECRET })).status).toBe(200);
    await waitForCount(() => qq.sent, 1, "the answer");
    expect(qq.sent[0]!.body.content).toBe("A tiny picture and your numbers.");

    const workspace = workspaceOf(user.user.id);
    expect(await readFile(path.join(workspace, folder, "photo.png"))).toEqual(PNG);
    expect(await readFile(path.join(workspace, folder, "outside.txt"), "utf8")).toBe("quarterly numbers\n");
    expect(existsSync(path.join(workspace, "..", "outside.txt"))).toBe(false);
    expect(existsSync(path.join(workspace, "outside.txt"))).toBe(false);

    const { text, images } = lastUserMessage();
    expect(text).toContain("what are these?");
    expect(text).toContain(`${folder}/photo.png (image/png`);
    expect(text).toContain(`${folder}/outside.txt (text/plain`);
    expect(images).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
    expect(qq.downloads.sort()).toEqual(["/files/notes", "/files/photo"]);
  });

  it("skips files over the size limit, on private addresses and past the count, and tells the run which and why", async () => {
    const user = await boundQqUser("OPENID_LIMITS");
    const privateUrl = `http://127.0.0.2:${(privateServer.address() as AddressInfo).port}/files/secret.png`;
    const attachments = [
      // QQ says it is too large: not even downloaded.
      { content_type: "application/zip", filename: "declared.zip", url: qq.serveFile("declared", BIG), size: BIG.length },
      // Sizes not given (or wrong): the download is cut off at the limit, with a length or without.
      { content_type: "application/zip", filename: "long.zip", url: qq.serveFile("long", BIG) },
      { content_type: "application/zip", filename: "streamed.zip", url: qq.serveFile("streamed", BIG, { chunked: true }), size: 10 },
      { content_type: "image/png", filename: "secret.png", url: privateUrl },
      { content_type: "text/plain", filename: "fifth.txt", url: qq.serveFile("fifth", Buffer.from("five")) },
    ];
    fake.script([{ text: "Some files did not come through." }]);
    await postQq(qqAccount, qqGroupMessage({ group: "GROUP_FILES", member: "OPENID_LIMITS", content: "<@!bot> look", attachments }), { secret: QQ_SECRET });
    await waitForCount(() => qq.sent, 1, "the answer");

    const { text, images } = lastUserMessage();
    expect(text).toContain("look");
    expect(text).toMatch(/Attachment "declared\.zip" was not read: it is 100 KB, over the limit of 64 KB per file/);
    expect(text).toMatch(/Attachment "long\.zip" was not read: it is over the limit of 64 KB per file/);
    expect(text).toMatch(/Attachment "streamed\.zip" was not read: it is over the limit of 64 KB per file/);
    expect(text).toMatch(/Attachment "secret\.png" was not read: the download failed \(.*not allowed/);
    expect(text).toContain("1 more attachment was not read: at most 4 are read from one message");
    expect(images).toEqual([]);
    expect(privateRequests).toBe(0);
    expect(qq.downloads).not.toContain("/files/declared");
    expect(qq.downloads).not.toContain("/files/fifth");
    expect(existsSync(path.join(workspaceOf(user.user.id), "channels"))).toBe(false);
  });
});

describe("attachment records", () => {
  it("keeps QQ's CDN URLs given without a scheme as https, and downloads nothing for an unbound sender", async () => {
    const attachments = [
      { content_type: "image/jpeg", filename: "a.jpg", url: "//multimedia.nt.qq.com.cn/download?appid=1407&fileid=abc", size: 10 },
      { content_type: "image/jpeg", filename: "b.jpg", url: "gchat.qpic.cn/qmeetpic/0/0-0-ABC/0", size: 10 },
      { content_type: "image/jpeg", filename: "c.jpg", url: "https://multimedia.nt.qq.com.cn/download?fileid=def" },
    ];
    const message = qqDirectMessage({ openid: "OPENID_NOBODY", content: "", attachments });
    await postQq(qqAccount, message, { secret: QQ_SECRET });
    await waitForCount(() => qq.sent, 1, "the instruction");
    const event = await db().channelEvent.findFirstOrThrow({ where: { accountId: qqAccount, externalId: message.d.id } });
    expect((event.message as { attachments: { url: string }[] }).attachments.map((attachment) => attachment.url)).toEqual([
      "https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=abc",
      "https://gchat.qpic.cn/qmeetpic/0/0-0-ABC/0",
      "https://multimedia.nt.qq.com.cn/download?fileid=def",
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it("stores the same bytes under the same name once (a retried job), and different bytes beside them", async () => {
    const { user } = await createUser();
    const first = await storeWorkspaceFile({ userId: user.id, folder: "channels/2026-01-01", fileName: "a/../report.txt", data: Buffer.from("one"), reuseIdentical: true });
    const again = await storeWorkspaceFile({ userId: user.id, folder: "channels/2026-01-01", fileName: "report.txt", data: Buffer.from("one"), reuseIdentical: true });
    const other = await storeWorkspaceFile({ userId: user.id, folder: "channels/2026-01-01", fileName: "report.txt", data: Buffer.from("two"), reuseIdentical: true });
    expect([first.path, again.path, other.path]).toEqual(["channels/2026-01-01/report.txt", "channels/2026-01-01/report.txt", "channels/2026-01-01/report (2).txt"]);
    expect(await readFile(path.join(workspaceOf(user.id), "channels/2026-01-01/report (2).txt"), "utf8")).toBe("two");
  });
});

describe("Feishu attachments", () => {
  it("downloads image and file messages from the message resource API with the tenant token", async () => {
    const user = await createUser();
    const code = await bindingCode(user.cookie);
    await postFeishu(feishuAccount, feishuMessage({ token: TOKEN, openId: "ou_files", text: `/bind ${code}` }), { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 1, "the bind confirmation");

    const image = feishuMessage({ token: TOKEN, openId: "ou_files", text: "", messageType: "image", content: { image_key: "img_v3_0abc" } });
    feishu.serveResource(image.event.message.message_id, "img_v3_0abc", "image", PNG);
    fake.script([{ text: "A one-pixel picture." }]);
    await postFeishu(feishuAccount, image, { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 2, "the answer to the picture");
    expect(feishu.sent[1]!.text).toBe("A one-pixel picture.");
    const folder = `channels/${new Date(Number(image.event.message.create_time)).toISOString().slice(0, 10)}`;
    const seenImage = lastUserMessage();
    expect(seenImage.text).toContain(`${folder}/image-img_v3_0abc.png (image/png`);
    expect(seenImage.images).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
    expect(await readFile(path.join(workspaceOf(user.user.id), folder, "image-img_v3_0abc.png"))).toEqual(PNG);

    const file = feishuMessage({ token: TOKEN, openId: "ou_files", text: "", messageType: "file", content: { file_key: "file_v3_0def", file_name: "../../../.ssh/authorized_keys" } });
    feishu.serveResource(file.event.message.message_id, "file_v3_0def", "file", Buffer.from("ssh-ed25519 AAAA"));
    const missing = feishuMessage({ token: TOKEN, openId: "ou_files", text: "", messageType: "file", content: { file_key: "file_gone", file_name: "gone.pdf" } });
    fake.script([{ text: "Got the file." }, { text: "That one did not arrive." }]);
    await postFeishu(feishuAccount, file, { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 3, "the answer to the file");
    expect(lastUserMessage().text).toContain(`${folder}/authorized_keys (application/octet-stream`);
    expect(await readFile(path.join(workspaceOf(user.user.id), folder, "authorized_keys"), "utf8")).toBe("ssh-ed25519 AAAA");
    expect(existsSync(path.join(workspaceOf(user.user.id), ".ssh"))).toBe(false);

    await postFeishu(feishuAccount, missing, { encryptKey: KEY });
    await waitForCount(() => feishu.sent, 4, "the answer to the missing file");
    expect(lastUserMessage().text).toMatch(/Attachment "gone\.pdf" was not read: the download failed \(Feishu message resource failed: HTTP 400 \(File not in msg\., code 234003\)/);
    expect(feishu.downloads).toEqual([`${image.event.message.message_id}/img_v3_0abc?type=image`, `${file.event.message.message_id}/file_v3_0def?type=file`, `${missing.event.message.message_id}/file_gone?type=file`]);
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as listModels } from "@/app/api/models/route";
import { POST as uploadRoute } from "@/app/api/sessions/[id]/attachments/route";
import { GET as exportRoute } from "@/app/api/sessions/[id]/export/route";
import { GET as getSession, PATCH as updateSession } from "@/app/api/sessions/[id]/route";
import { POST as summarizeRoute } from "@/app/api/sessions/[id]/title/route";
import { GET as listSessionsRoute, POST as createSessionRoute } from "@/app/api/sessions/route";
import { PATCH as updateMe } from "@/app/api/me/route";
import { POST as chat } from "@/app/api/chat/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser, ORIGIN } from "../support/http";
import { readUiStream } from "../support/ui-stream";

/**
 * The server side of the chat UX: "New chat" reusing an empty chat, renaming without reordering,
 * plain and summarised titles, the model picker, custom instructions, attachments (files into the
 * workspace, images to the model), export, and the error text when the only provider fails.
 */
const directory = mkdtempSync(path.join(os.tmpdir(), "xclaw-chat-ux-"));
const config = parseDocument(readFileSync(path.join(process.cwd(), "xclaw.yaml"), "utf8"));
config.setIn(["providers", "openai", "models"], ["gpt-4o", "o4-mini"]);
config.setIn(["providers", "retries"], 0);
config.setIn(["browser", "worker"], "off");
writeFileSync(path.join(directory, "xclaw.yaml"), String(config));
process.env.XCLAW_CONFIG = path.join(directory, "xclaw.yaml");
process.env.XCLAW_DATA_DIR = path.join(directory, "data");
resetEnvironment();

let fake: TFakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
  delete process.env.XCLAW_CONFIG;
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

// A 1×1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

async function upload(cookie: string, sessionId: string, name: string, body: Uint8Array<ArrayBuffer>, origin = ORIGIN) {
  const request = new Request(`${ORIGIN}/api/sessions/${sessionId}/attachments?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { host: "localhost:3000", origin, cookie, "content-type": "application/octet-stream" },
    body,
  });
  const response = await uploadRoute(request, { params: Promise.resolve({ id: sessionId }) as Promise<never> });
  return { status: response.status, json: await response.json() };
}

async function chatWith(cookie: string, body: unknown) {
  const request = new Request(`${ORIGIN}/api/chat`, { method: "POST", headers: { host: "localhost:3000", origin: ORIGIN, cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
  return chat(request, { params: Promise.resolve({}) as Promise<never> });
}

describe("the chat list", () => {
  it('"New chat" opens the newest empty chat again instead of adding another', async () => {
    const { cookie } = await createUser();
    const first = await call(createSessionRoute, "/api/sessions", { cookie, body: { reuseEmpty: true } });
    expect(first.status).toBe(201);
    const again = await call(createSessionRoute, "/api/sessions", { cookie, body: { reuseEmpty: true } });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ reused: true, session: { id: first.json.session.id } });
    fake.script([{ text: "Hello." }]);
    await sendChat(cookie, first.json.session.id, "hi");
    const third = await call(createSessionRoute, "/api/sessions", { cookie, body: { reuseEmpty: true } });
    expect(third.status).toBe(201);
    expect(third.json.session.id).not.toBe(first.json.session.id);
    // Without reuseEmpty (scripts, the API) every POST still makes a new session.
    const plain = await call(createSessionRoute, "/api/sessions", { cookie, body: {} });
    expect(plain.json.session.id).not.toBe(third.json.session.id);
  });

  it("renaming keeps the chat's place in the list and its title from then on", async () => {
    const { cookie } = await createUser();
    const older = await newSession(cookie);
    fake.script([{ text: "One." }, { text: "Two." }]);
    await sendChat(cookie, older, "first chat");
    const newer = await newSession(cookie);
    await sendChat(cookie, newer, "second chat");
    const before = (await call(listSessionsRoute, "/api/sessions", { cookie })).json.sessions.map((session: { id: string }) => session.id);
    expect(before.slice(0, 2)).toEqual([newer, older]);
    const renamed = await call(updateSession, "/x", { method: "PATCH", cookie, params: { id: older }, body: { title: "My own title" } });
    expect(renamed.json.session.title).toBe("My own title");
    const after = (await call(listSessionsRoute, "/api/sessions", { cookie })).json.sessions.map((session: { id: string }) => session.id);
    expect(after.slice(0, 2)).toEqual([newer, older]);
    // A renamed chat is never summarised.
    const requests = fake.requests.length;
    expect((await call(summarizeRoute, "/x", { cookie, params: { id: older }, body: {} })).json.session.title).toBe("My own title");
    expect(fake.requests.length).toBe(requests);
  });

  it("titles are plain text, and the model summarises one once after the first reply", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "Here is a plan for your weekend in Lisbon." }, { text: "“Weekend in **Lisbon**.”\nMore text" }]);
    await sendChat(cookie, sessionId, "## Plan my **weekend** in `Lisbon`, please");
    expect((await call(getSession, "/x", { cookie, params: { id: sessionId } })).json.session.title).toBe("Plan my weekend in Lisbon, please");
    const summarized = await call(summarizeRoute, "/x", { cookie, params: { id: sessionId }, body: {} });
    expect(summarized.status).toBe(200);
    expect(summarized.json.session.title).toBe("Weekend in Lisbon");
    const titleRequest = fake.requests.at(-1)!;
    expect(titleRequest.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(titleRequest.body.messages)).toContain("Here is a plan for your weekend in Lisbon.");
    // Once only: the title is no longer the stand-in, so nothing is asked again.
    const requests = fake.requests.length;
    await call(summarizeRoute, "/x", { cookie, params: { id: sessionId }, body: {} });
    expect(fake.requests.length).toBe(requests);
    // Another user's chat is not found.
    const other = await createUser();
    expect((await call(summarizeRoute, "/x", { cookie: other.cookie, params: { id: sessionId }, body: {} })).status).toBe(404);
  });
});

describe("the model picker", () => {
  it("offers the configured models and uses the chat's choice, with the rest of the chain behind it", async () => {
    const { cookie } = await createUser();
    const models = await call(listModels, "/api/models", { cookie });
    expect(models.json.models.map((choice: { id: string }) => choice.id)).toEqual(["openai:gpt-4o-mini", "openai:gpt-4o", "openai:o4-mini"]);
    const chosen = await newSession(cookie);
    const plain = await newSession(cookie);
    const picked = await call(updateSession, "/x", { method: "PATCH", cookie, params: { id: chosen }, body: { model: "openai:gpt-4o" } });
    expect(picked.status).toBe(200);
    expect(picked.json.session.model).toBe("openai:gpt-4o");
    expect((await call(updateSession, "/x", { method: "PATCH", cookie, params: { id: chosen }, body: { model: "openai:gpt-5-ultra" } })).status).toBe(400);

    fake.script([{ text: "From the chosen model." }, { text: "From the default." }]);
    const reply = await sendChat(cookie, chosen, "hello");
    expect(reply.chunks.find((chunk) => chunk.type === "message-metadata")?.messageMetadata).toMatchObject({ model: "gpt-4o" });
    expect(fake.requests.at(-1)!.body.model).toBe("gpt-4o");
    await sendChat(cookie, plain, "hello");
    expect(fake.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
    // Back to the default.
    await call(updateSession, "/x", { method: "PATCH", cookie, params: { id: chosen }, body: { model: null } });
    fake.script([{ text: "Default again." }]);
    await sendChat(cookie, chosen, "and now?");
    expect(fake.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });
});

describe("custom instructions", () => {
  it("are added to the system prompt of the person's runs, also after an approval", async () => {
    const { cookie } = await createUser();
    await call(updateMe, "/api/me", { method: "PATCH", cookie, body: { instructions: "Always answer in French." } });
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "a.md", content: "x" } }] }, { text: "C'est fait." }]);
    const paused = await sendChat(cookie, sessionId, "write a.md");
    expect(fake.requests.at(-1)!.body.messages[0].content).toContain("Always answer in French.");
    const approval = paused.chunks.find((chunk) => chunk.type === "data-approval")!.data as { approvalId: string };
    await readUiStream(await decideResponse(cookie, sessionId, approval.approvalId, { decision: "approve" }));
    await waitForRun(sessionId);
    expect(fake.requests.at(-1)!.body.messages[0].content).toContain("Always answer in French.");
    // Other people's runs do not get them.
    const other = await createUser();
    const theirs = await newSession(other.cookie);
    fake.script([{ text: "Hi." }]);
    await sendChat(other.cookie, theirs, "hi");
    expect(fake.requests.at(-1)!.body.messages[0].content).not.toContain("Always answer in French.");
  });
});

describe("a message while an approval is pending", () => {
  it("streams the declined call before the reply, so the chat can show it (useChat refuses unseen calls)", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "b.md", content: "x" } }] }, { text: "Fine, I will not write it." }]);
    await sendChat(cookie, sessionId, "write b.md");
    const reply = await sendChat(cookie, sessionId, "No, do not write anything.");
    expect(reply.tools.map((chunk) => `${chunk.type} ${String(chunk.toolName ?? "")}`)).toEqual(["tool-input-available write_file", "tool-output-available "]);
    expect((reply.tools[1]!.output as { isError: boolean; text: string }).text).toMatch(/^Denied by the user/);
    expect(reply.text).toBe("Fine, I will not write it.");
    expect(reply.chunks.some((chunk) => chunk.type === "error")).toBe(false);
  });
});

describe("attachments", () => {
  it("stores files in the workspace, names them to the agent and gives images to the model", async () => {
    const { cookie, user } = await createUser();
    const sessionId = await newSession(cookie);
    const notes = await upload(cookie, sessionId, "../../notes.md", new TextEncoder().encode("# Notes\nbuy milk\n"));
    expect(notes.status).toBe(201);
    expect(notes.json.attachment).toMatchObject({ name: "notes.md", path: "uploads/notes.md", mediaType: "text/markdown", bytes: 17 });
    const again = await upload(cookie, sessionId, "notes.md", new TextEncoder().encode("second"));
    expect(again.json.attachment.path).toBe("uploads/notes (2).md");
    // The browser said nothing true about this file's type; its bytes say PNG.
    const picture = await upload(cookie, sessionId, "photo.bin", PNG);
    expect(picture.json.attachment).toMatchObject({ path: "uploads/photo.bin", mediaType: "image/png" });
    const workspace = path.join(process.env.XCLAW_DATA_DIR!, "workspaces", user.id);
    expect(await readFile(path.join(workspace, "uploads", "notes.md"), "utf8")).toBe("# Notes\nbuy milk\n");

    fake.script([{ text: "I see a tiny picture and your notes." }]);
    const reply = await readUiStream(await chatWith(cookie, { sessionId, text: "What did I send?", attachments: ["uploads/notes.md", "uploads/photo.bin"] }));
    expect(reply.text).toBe("I see a tiny picture and your notes.");
    const sent = fake.requests.at(-1)!.body.messages.at(-1);
    expect(sent.role).toBe("user");
    expect(sent.content[0].text).toContain("What did I send?");
    expect(sent.content[0].text).toContain("uploads/notes.md (text/markdown");
    expect(sent.content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } });

    // After a reload the message shows its files, and the next run's history still has the image.
    const loaded = await call(getSession, "/x", { cookie, params: { id: sessionId } });
    const attachments = loaded.json.messages[0].parts.filter((part: { type: string }) => part.type === "data-attachment").map((part: { data: unknown }) => part.data);
    expect(attachments).toEqual([
      { name: "notes.md", path: "uploads/notes.md", mediaType: "text/markdown", bytes: 17 },
      { name: "photo.bin", path: "uploads/photo.bin", mediaType: "image/png", bytes: PNG.length, preview: `data:image/png;base64,${PNG.toString("base64")}` },
    ]);
    fake.script([{ text: "Still there." }]);
    await sendChat(cookie, sessionId, "and now?");
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain(PNG.toString("base64"));
  });

  it("accepts a message that is only files, and still refuses an empty one", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    expect((await chatWith(cookie, { sessionId, text: "   " })).status).toBe(400);
    await upload(cookie, sessionId, "report.csv", new TextEncoder().encode("a,b\n1,2\n"));
    fake.script([{ text: "A small table." }]);
    const reply = await readUiStream(await chatWith(cookie, { sessionId, text: "", attachments: ["uploads/report.csv"] }));
    expect(reply.text).toBe("A small table.");
    expect(fake.requests.at(-1)!.body.messages.at(-1).content).toContain("uploads/report.csv (text/csv");
  });

  it("refuses files outside the workspace, other people's chats, empty and too many files", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const other = await createUser();
    expect((await upload(other.cookie, sessionId, "x.txt", new TextEncoder().encode("x"))).status).toBe(404);
    expect((await upload(cookie, sessionId, "empty.txt", new Uint8Array())).status).toBe(400);
    expect((await upload(cookie, sessionId, "x.txt", new TextEncoder().encode("x"), "https://evil.example")).status).toBe(403);
    const outside = await chatWith(cookie, { sessionId, text: "read", attachments: ["../../../etc/passwd"] });
    expect(outside.status).toBe(400);
    const many = await chatWith(cookie, { sessionId, text: "many", attachments: ["a", "b", "c", "d", "e", "f"] });
    expect(many.status).toBe(400);
    expect((await many.json()).error.message).toBe("Attach at most 5 files to one message.");
    // Nothing was written for refused messages.
    expect(await db().step.count({ where: { sessionId } })).toBe(0);
  });
});

describe("an interrupted run", () => {
  it("is explained once, by its note, which the chat offers Resume on", async () => {
    const { user, cookie } = await createUser();
    // What a kill -9 during a model call leaves behind: RUNNING with a dead lease, the model step running.
    const session = await db().chatSession.create({
      data: { userId: user.id, title: "Crashed", status: "RUNNING", runnerId: "dead-process", leaseExpiresAt: new Date(Date.now() - 60_000), nextSeq: 3 },
    });
    await db().step.create({ data: { sessionId: session.id, userId: user.id, seq: 1, type: "USER_INPUT", name: "user", status: "COMPLETED", input: { text: "hello" }, endedAt: new Date() } });
    await db().step.create({ data: { sessionId: session.id, userId: user.id, seq: 2, type: "MODEL_CALL", name: "model", status: "RUNNING", input: { iteration: 1 } } });
    const loaded = await call(getSession, "/x", { cookie, params: { id: session.id } });
    expect(loaded.json.session).toMatchObject({ interrupted: true });
    const notices = loaded.json.messages.flatMap((message: { parts: { type: string; data?: { text: string; kind?: string } }[] }) =>
      message.parts.filter((part) => part.type === "data-notice").map((part) => part.data),
    );
    expect(notices).toEqual([{ text: expect.stringMatching(/^This run was interrupted/), tone: "warning", kind: "interrupted" }]);
  });
});

describe("export and errors", () => {
  it("exports a chat as Markdown and as JSON, for its owner only", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "6*7" } }] }, { text: "It is **42**.\n\n```\ncode ``` inside\n```" }]);
    await sendChat(cookie, sessionId, "What is 6*7?");
    const markdown = await call(exportRoute, `/x?format=markdown`, { cookie, params: { id: sessionId } });
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(markdown.headers.get("content-disposition")).toMatch(/^attachment; filename="what-is-6-7\.md"/);
    expect(markdown.json).toContain("# What is 6*7?");
    expect(markdown.json).toContain("## You\n\nWhat is 6*7?");
    expect(markdown.json).toContain("**Tool `calculator`**");
    expect(markdown.json).toContain("6*7 = 42");
    expect(markdown.json).toContain("## xclaw");
    expect(markdown.json).toContain("It is **42**.");
    const json = await call(exportRoute, `/x?format=json`, { cookie, params: { id: sessionId } });
    expect(json.json).toMatchObject({ format: "xclaw-chat", version: 1, session: { id: sessionId } });
    expect(json.json.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"]);
    expect((await call(exportRoute, `/x?format=pdf`, { cookie, params: { id: sessionId } })).status).toBe(400);
    const other = await createUser();
    expect((await call(exportRoute, `/x?format=json`, { cookie: other.cookie, params: { id: sessionId } })).status).toBe(404);
  });

  it("says plainly that the only provider failed and that there is no other", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ status: 503, errorMessage: "upstream down" }]);
    const reply = await sendChat(cookie, sessionId, "hello?");
    const error = reply.chunks.find((chunk) => chunk.type === "error");
    expect(error?.errorText).toMatch(/^The model provider failed: openai \(gpt-4o-mini\): .*503.*No other provider is configured to fall back to\.$/);
  });
});

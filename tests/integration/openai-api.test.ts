import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as createToken } from "@/app/api/tokens/route";
import { POST as chatCompletions } from "@/app/v1/chat/completions/route";
import { GET as models } from "@/app/v1/models/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { workspaceRoot } from "@/lib/sandbox/runtime";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { serveRoutes } from "../support/http-server";
import { readUiStream } from "../support/ui-stream";

/**
 * The OpenAI-compatible API driven by the official `openai` SDK over real HTTP, against the real
 * route handlers, with the fake LLM as the model behind the agent.
 */
let fake: TFakeLlm;
let dataDirectory: string;
let baseURL: string;
let close: () => Promise<void>;

beforeAll(async () => {
  fake = await startFakeLlm();
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-openai-api-"));
  process.env.XCLAW_DATA_DIR = dataDirectory;
  resetEnvironment();
  let port: number;
  ({ port, close } = await serveRoutes({ "/v1/chat/completions": { POST: chatCompletions }, "/v1/models": { GET: models } }));
  baseURL = `http://127.0.0.1:${port}/v1`;
}, 30_000);
afterAll(async () => {
  await close();
  await fake.close();
  await rm(dataDirectory, { recursive: true, force: true });
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

async function apiUser() {
  const user = await createUser();
  const created = await call(createToken, "/api/tokens", { cookie: user.cookie, body: { name: "openai sdk" } });
  expect(created.status).toBe(201);
  const client = new OpenAI({ baseURL, apiKey: created.json.token as string, maxRetries: 0, timeout: 60_000 });
  return { ...user, client };
}

describe("POST /v1/chat/completions", () => {
  it("answers without streaming in a new API session, with the session in a header", async () => {
    const { client, user } = await apiUser();
    fake.script([{ text: "Hello from the agent.", usage: { inputTokens: 12, outputTokens: 5 } }]);
    const { data: completion, response } = await client.chat.completions
      .create({ model: "xclaw", messages: [{ role: "user", content: "Say hello" }], temperature: 0.2 })
      .withResponse();
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("xclaw");
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from the agent." } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    const sessionId = response.headers.get("x-xclaw-session")!;
    const session = await db().chatSession.findFirstOrThrow({ where: { id: sessionId, userId: user.id } });
    expect(session.trigger).toBe("API");
    expect(session.title).toBe("Say hello");
    // The model got the person's message as the last one.
    const sent = fake.requests[0]!.body.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(sent.at(-1))).toContain("Say hello");
  }, 60_000);

  it("streams chat.completion.chunks ending with [DONE], and continues the session named by X-Xclaw-Session", async () => {
    const { client } = await apiUser();
    fake.script([{ text: "First answer, streamed in pieces.", chunks: 4 }, { text: "Second answer." }]);
    const { data: stream, response } = await client.chat.completions
      .create({ model: "xclaw", messages: [{ role: "user", content: "One" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const sessionId = response.headers.get("x-xclaw-session")!;
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    let text = "";
    const finishReasons: (string | null)[] = [];
    let usageChunks = 0;
    let contentChunks = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      if (chunk.usage) usageChunks++;
      for (const choice of chunk.choices) {
        if (choice.delta.content) {
          contentChunks++;
          text += choice.delta.content;
        }
        finishReasons.push(choice.finish_reason);
      }
    }
    expect(text).toBe("First answer, streamed in pieces.");
    expect(contentChunks).toBeGreaterThan(1);
    expect(finishReasons.at(-1)).toBe("stop");
    expect(usageChunks).toBe(1);

    // A continued session sends only the last user message as new input; history comes from the database.
    const second = await client.chat.completions.create(
      { model: "xclaw", messages: [{ role: "user", content: "ignored history" }, { role: "assistant", content: "ignored" }, { role: "user", content: "Two" }] },
      { headers: { "X-Xclaw-Session": sessionId } },
    );
    expect(second.choices[0]!.message.content).toBe("Second answer.");
    const modelSaw = JSON.stringify(fake.requests[1]!.body.messages);
    expect(modelSaw).toContain("First answer, streamed in pieces.");
    expect(modelSaw).not.toContain("ignored history");
    const inputs = await db().step.findMany({ where: { sessionId, type: "USER_INPUT" }, orderBy: { seq: "asc" } });
    expect(inputs.map((step) => (step.input as { text: string }).text)).toEqual(["One", "Two"]);
  }, 60_000);

  it("writes the earlier messages of a new session's request above the new one, labelled", async () => {
    const { client } = await apiUser();
    fake.script([{ text: "Noted." }]);
    await client.chat.completions.create({
      model: "xclaw",
      messages: [
        { role: "system", content: "Answer like a pirate." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Ahoy" },
        { role: "user", content: [{ type: "text", text: "What now?" }] },
      ],
    });
    const last = JSON.stringify((fake.requests[0]!.body.messages as unknown[]).at(-1));
    expect(last).toContain("System: Answer like a pirate.");
    expect(last).toContain("Assistant: Ahoy");
    expect(last).toContain("[The new message]\\nWhat now?");
  }, 60_000);

  it("runs a tool on the server and answers with what the model said before and after it", async () => {
    const { client, user } = await apiUser();
    fake.script([{ text: "Let me compute.", toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "It is 42." }]);
    const completion = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "What is 6 times 7?" }] });
    expect(completion.choices[0]!.message.content).toBe("Let me compute.\n\nIt is 42.");
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    // The tool's result went back to the model, from the server.
    const toolMessage = (fake.requests[1]!.body.messages as { role: string; content: string }[]).find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("42");
    const call = await db().step.findFirstOrThrow({ where: { userId: user.id, type: "TOOL_CALL", name: "calculator" } });
    expect(call.status).toBe("COMPLETED");
  }, 60_000);

  it("pauses on a call that needs approval with a link to the card, and gives the rest after the decision on the web", async () => {
    const { client, user, cookie } = await apiUser();
    fake.script([{ text: "Writing it now.", toolCalls: [{ name: "write_file", arguments: { path: "notes/api.md", content: "from the api\n" } }] }, { text: "The note is written." }]);
    const { data: paused, response } = await client.chat.completions
      .create({ model: "xclaw", messages: [{ role: "user", content: "Write a note" }], stream: true })
      .withResponse();
    const sessionId = response.headers.get("x-xclaw-session")!;
    let text = "";
    let finish: string | null = null;
    for await (const chunk of paused) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? "";
        finish = choice.finish_reason ?? finish;
      }
    }
    expect(finish).toBe("stop");
    expect(text).toContain("Writing it now.");
    expect(text).toContain("Waiting for your approval to run write_file");
    expect(text).toContain(`/chat/${sessionId}`);
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId, userId: user.id, status: "PENDING" } });

    // Before the decision, the session waits: nothing runs and the message does not deny the call.
    const again = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "done?" }] }, { headers: { "X-Xclaw-Session": sessionId } });
    expect(again.choices[0]!.message.content).toContain("Waiting for your approval to run write_file");
    expect(fake.requests).toHaveLength(1);
    expect((await db().approval.findUniqueOrThrow({ where: { id: approval.id } })).status).toBe("PENDING");

    // The owner approves on the web card; the run goes on there.
    await readUiStream(await decideResponse(cookie, sessionId, approval.id, { decision: "approve" }));
    await waitForRun(sessionId);
    expect(await readFile(path.join(workspaceRoot(user.id), "notes/api.md"), "utf8")).toBe("from the api\n");

    // The next request in the session gets the rest, through `user` this time.
    const rest = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "continue" }], user: sessionId });
    expect(rest.choices[0]!.message.content).toBe("The note is written.");
    expect(rest.choices[0]!.finish_reason).toBe("stop");
    expect(await db().apiSessionWait.count({ where: { sessionId } })).toBe(0);
    // The rest is delivered once: the request after it is an ordinary turn.
    fake.script([{ text: "Anything else?" }]);
    const after = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "thanks" }], user: sessionId });
    expect(after.choices[0]!.message.content).toBe("Anything else?");
  }, 90_000);

  it("neither approves nor denies a call a web chat is paused on: the API client waits for the owner too", async () => {
    const { client, cookie } = await apiUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "notes/web.md", content: "from the web\n" } }] }]);
    await sendChat(cookie, sessionId, "write a note");
    await waitForRun(sessionId);
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId, status: "PENDING" } });
    const answer = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "never mind" }] }, { headers: { "X-Xclaw-Session": sessionId } });
    expect(answer.choices[0]!.message.content).toContain("Waiting for your approval to run write_file");
    expect((await db().approval.findUniqueOrThrow({ where: { id: approval.id } })).status).toBe("PENDING");
    expect(fake.requests).toHaveLength(1);
  }, 60_000);

  it("talks to one agent profile as xclaw:<agent>, and refuses an unknown model", async () => {
    const { client } = await apiUser();
    fake.script([{ text: "Reviewed." }]);
    const completion = await client.chat.completions.create({ model: "xclaw:reviewer", messages: [{ role: "user", content: "Look at this" }] });
    expect(completion.model).toBe("xclaw:reviewer");
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("You are reviewer");
    const unknown = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ type: "not_found_error", code: "not_found" });
  }, 60_000);

  it("refuses a request without a valid token with 401, and bad input with an OpenAI-shaped 400", async () => {
    const { client, cookie } = await apiUser();
    const anonymous = new OpenAI({ baseURL, apiKey: "not-a-token", maxRetries: 0 });
    const refused = await anonymous.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).error).toMatchObject({ type: "authentication_error", code: "unauthorized" });
    const noHeader = await fetch(`${baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "xclaw", messages: [] }) });
    expect(noHeader.status).toBe(401);
    // A signed-in browser's cookie is not enough: the API takes tokens only.
    const withCookie = await fetch(`${baseURL}/models`, { headers: { cookie } });
    expect(withCookie.status).toBe(401);
    const bad = await client.chat.completions.create({ model: "xclaw", messages: [{ role: "assistant", content: "no user message" }] }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    const body = (bad as InstanceType<typeof OpenAI.BadRequestError>).error as { message: string; type: string; code: string };
    expect(body).toMatchObject({ type: "invalid_request_error", code: "bad_request" });
    expect(body.message).toMatch(/last message must be the user's/);
    expect(fake.requests).toHaveLength(0);
  }, 30_000);

  it("answers 404 for another user's session, and runs nothing in it", async () => {
    const owner = await apiUser();
    const other = await apiUser();
    fake.script([{ text: "Owner's answer." }]);
    const { response } = await owner.client.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "mine" }] }).withResponse();
    const sessionId = response.headers.get("x-xclaw-session")!;
    for (const options of [{ headers: { "X-Xclaw-Session": sessionId } }, {}]) {
      const refused = await other.client.chat.completions
        .create({ model: "xclaw", messages: [{ role: "user", content: "let me in" }], ...(Object.keys(options).length ? {} : { user: sessionId }) }, options)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect(fake.requests).toHaveLength(1);
    expect(await db().step.count({ where: { sessionId, type: "USER_INPUT" } })).toBe(1);
  }, 30_000);
});

describe("GET /v1/models", () => {
  it("lists xclaw and the agents the caller can use", async () => {
    const { client } = await apiUser();
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids[0]).toBe("xclaw");
    expect(ids).toEqual(expect.arrayContaining(["xclaw:coder", "xclaw:reviewer"]));
    const anonymous = new OpenAI({ baseURL, apiKey: "xclaw_wrong", maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  }, 30_000);
});

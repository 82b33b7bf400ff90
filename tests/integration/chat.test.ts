import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as getSession } from "@/app/api/sessions/[id]/route";
import { GET as listSessionsRoute } from "@/app/api/sessions/route";
import { GET as getSteps } from "@/app/api/sessions/[id]/steps/route";
import { POST as stop } from "@/app/api/sessions/[id]/stop/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { chatResponse as sendChat, clearProviderEnvironment, newSession, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { readUiStream } from "../support/ui-stream";

let fake: TFakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

describe("POST /api/chat", () => {
  it("streams text from the model and persists the exchange as steps", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "Hello there, how can I help?", chunks: 4, usage: { inputTokens: 50, outputTokens: 7 } }]);
    const response = await sendChat(cookie, sessionId, "Hi!");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const { chunks, text } = await readUiStream(response);
    expect(text).toBe("Hello there, how can I help?");
    expect(chunks.filter((chunk) => chunk.type === "text-delta").length).toBeGreaterThanOrEqual(2);
    expect(chunks.at(-1)?.type).toBe("finish");

    const request = fake.requests[0]!;
    expect(request.headers.authorization).toBe("Bearer test-openai-key");
    expect(request.body.messages[0].role).toBe("system");
    expect(request.body.messages.at(-1)).toEqual({ role: "user", content: "Hi!" });
    // Every registered tool reaches the provider, from the one registry.
    expect(request.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort()).toEqual(defaultToolRegistry().names().sort());
    expect(request.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(expect.arrayContaining(["calculator", "current_time", "write_file", "shell"]));

    const steps = (await call(getSteps, "/x", { cookie, params: { id: sessionId } })).json.steps;
    expect(steps.map((step: { key: string; type: string; status: string }) => [step.key, step.type, step.status])).toEqual([
      ["s0001", "user_input", "completed"],
      ["s0002", "model_call", "completed"],
    ]);
    expect(steps[1]).toMatchObject({ inputTokens: 50, outputTokens: 7, provider: "openai" });

    const session = (await call(getSession, "/x", { cookie, params: { id: sessionId } })).json;
    expect(session.session).toMatchObject({ title: "Hi!", status: "success", live: false });
    expect(session.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"]);
    expect(session.messages[1].parts.find((part: { type: string }) => part.type === "text").text).toBe("Hello there, how can I help?");
  });

  it("runs a tool round trip: tool parts in the stream, result fed back to the model, history replayed next turn", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "The answer is 42." }]);
    const { text, tools } = await readUiStream(await sendChat(cookie, sessionId, "What is 6*7?"));
    expect(text).toBe("The answer is 42.");
    expect(tools.map((chunk) => chunk.type)).toEqual(["tool-input-available", "tool-output-available"]);
    expect(tools[0]).toMatchObject({ toolName: "calculator", input: { expression: "6 * 7" } });
    expect((tools[1]!.output as { text: string }).text).toBe("6 * 7 = 42");
    // The second model call saw the assistant tool call and the tool result, paired by id.
    const second = fake.requests[1]!.body.messages;
    const assistant = second.find((message: { role: string }) => message.role === "assistant");
    const toolMessage = second.find((message: { role: string }) => message.role === "tool");
    expect(toolMessage).toEqual({ role: "tool", tool_call_id: assistant.tool_calls[0].id, content: "6 * 7 = 42" });

    fake.script([{ text: "Still 42." }]);
    await readUiStream(await sendChat(cookie, sessionId, "Again?"));
    const third = fake.requests[2]!.body.messages.slice(1);
    expect(third.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(third[2].tool_call_id).toBe(third[1].tool_calls[0].id);
  });

  it("reports unknown tools and invalid arguments back to the model as observations", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([
      { toolCalls: [{ name: "launch_rockets", arguments: {} }, { name: "calculator", arguments: { expr: "1+1" } }, { name: "calculator", arguments: "{not json" }] },
      { text: "Sorry." },
    ]);
    await readUiStream(await sendChat(cookie, sessionId, "go"));
    const tools = fake.requests[1]!.body.messages.filter((message: { role: string }) => message.role === "tool");
    expect(tools[0].content).toBe(`ERROR: Unknown tool "launch_rockets". Available tools: ${defaultToolRegistry().names().join(", ")}.`);
    expect(tools[1].content).toMatch(/^ERROR: Invalid arguments for calculator: .*expression/s);
    expect(tools[2].content).toMatch(/^ERROR: The arguments for calculator are not valid JSON/);
  });

  it("falls back from a failing primary to the next provider and says why", async () => {
    process.env.XCLAW_PROVIDERS = "anthropic,openai";
    resetEnvironment();
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script((request) => (request.api === "anthropic" ? { status: 401, errorMessage: "invalid x-api-key" } : { text: "Answer from OpenAI." }));
    const { text, chunks } = await readUiStream(await sendChat(cookie, sessionId, "hello"));
    expect(text).toBe("Answer from OpenAI.");
    expect(fake.requests.map((request) => request.api)).toEqual(["anthropic", "openai"]);
    const notice = chunks.find((chunk) => chunk.type === "data-notice");
    expect((notice!.data as { text: string }).text).toMatch(/^anthropic \(claude-sonnet-5\) failed: HTTP 401/);
    const steps = await db().step.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    expect(steps[1]).toMatchObject({ provider: "openai", status: "COMPLETED" });
  });

  it("does not duplicate text when a stream breaks midway and another provider takes over", async () => {
    process.env.XCLAW_PROVIDERS = "openai,anthropic";
    resetEnvironment();
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    let openaiCalls = 0;
    fake.script((request) => {
      if (request.api === "openai") {
        openaiCalls++;
        return { text: "Partial answer that will break", chunks: 6, breakAfterChunks: 3 };
      }
      return { text: "Complete answer from Claude." };
    });
    const { text, chunks } = await readUiStream(await sendChat(cookie, sessionId, "hello"));
    expect(text).toBe("Complete answer from Claude.");
    expect(chunks.some((chunk) => chunk.type === "data-text-discard")).toBe(true);
    expect(openaiCalls).toBe(3); // first attempt + 2 retries (xclaw.yaml providers.retries)
    const model = await db().step.findFirstOrThrow({ where: { sessionId, type: "MODEL_CALL" } });
    expect(model.output).toMatchObject({ text: "Complete answer from Claude." });
  }, 30_000);

  it("names every provider's failure when all fail, and the session records it", async () => {
    process.env.XCLAW_PROVIDERS = "anthropic,openai";
    resetEnvironment();
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script(() => ({ status: 400, errorMessage: "bad request body" }));
    const { chunks } = await readUiStream(await sendChat(cookie, sessionId, "hello"));
    const error = chunks.find((chunk) => chunk.type === "error");
    expect(error?.errorText).toMatch(/^Every model provider failed: anthropic \(claude-sonnet-5\): HTTP 400 .*; openai \(gpt-4o-mini\): HTTP 400 /);
    const session = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect(session.status).toBe("FAILED");
    expect(session.statusReason).toMatch(/^Every model provider failed/);
  });

  it("keeps running when the client disconnects, and persists the full result", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "one two three four five six seven eight", chunks: 8, chunkDelayMs: 60 }]);
    const response = await sendChat(cookie, sessionId, "count");
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await waitForRun(sessionId);
    const model = await db().step.findFirstOrThrow({ where: { sessionId, type: "MODEL_CALL" } });
    expect(model.status).toBe("COMPLETED");
    expect(model.output).toMatchObject({ text: "one two three four five six seven eight" });
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("SUCCESS");
  });

  it("stops a run cleanly when asked, and records it", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "a slow answer that takes a long while to finish streaming", chunks: 20, chunkDelayMs: 100 }]);
    const response = await sendChat(cookie, sessionId, "go slowly");
    const reader = response.body!.getReader();
    await reader.read();
    const stopped = await call(stop, "/x", { method: "POST", cookie, params: { id: sessionId } });
    expect(stopped.json).toEqual({ stopped: true });
    await waitForRun(sessionId);
    const session = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect(session).toMatchObject({ status: "FAILED", statusReason: "stopped by the user" });
    const steps = await db().step.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    expect(steps.map((step) => [step.type, step.status])).toEqual([
      ["USER_INPUT", "COMPLETED"],
      ["MODEL_CALL", "FAILED"],
      ["SYSTEM_NOTE", "COMPLETED"],
    ]);
  });

  it("refuses a second run while one is in progress", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "slow", chunks: 4, chunkDelayMs: 200 }]);
    const first = await sendChat(cookie, sessionId, "one");
    const second = await sendChat(cookie, sessionId, "two");
    expect(second.status).toBe(409);
    await readUiStream(first);
    await waitForRun(sessionId);
  });

  it("ends with a clear message at the iteration limit", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script(() => ({ toolCalls: [{ name: "current_time", arguments: {} }] }));
    const { chunks } = await readUiStream(await sendChat(cookie, sessionId, "loop forever"));
    const notice = chunks.filter((chunk) => chunk.type === "data-notice").at(-1);
    expect((notice!.data as { text: string }).text).toMatch(/^Stopped after 12 model calls without a final answer/);
    expect(fake.requests.length).toBe(12);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("SUCCESS");
  });

  it("tells the user plainly when no provider is configured", async () => {
    for (const key of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]) delete process.env[key];
    resetEnvironment();
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const response = await sendChat(cookie, sessionId, "hello");
    expect(response.status).toBe(503);
    expect((await response.json()).error.message).toMatch(/^No model provider is configured/);
  });

  it("takes a pasted 200 KB message whole, and refuses one over the limit with a 400 that says so", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const log = Array.from({ length: 2_000 }, (_, index) => `2026-12-02T07:35:00.${index} ERROR order ${index} failed: connection reset by peer`).join("\n").padEnd(200_000, "x");
    fake.script([{ text: "Read it." }]);
    const { text } = await readUiStream(await sendChat(cookie, sessionId, log));
    expect(text).toBe("Read it.");
    expect(fake.requests[0]!.body.messages.at(-1)).toEqual({ role: "user", content: log });
    const session = (await call(getSession, "/x", { cookie, params: { id: sessionId } })).json;
    expect(session.messages[0].parts.find((part: { type: string }) => part.type === "text").text).toBe(log);

    const tooLong = await sendChat(cookie, sessionId, "y".repeat(300_001));
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(await tooLong.json())).toContain("longer than 300,000 characters");
  });
});

describe("sessions API isolation", () => {
  it("never shows or runs another user's session (404), and lists only the caller's", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const aliceSession = await newSession(alice.cookie);
    expect((await call(getSession, "/x", { cookie: bob.cookie, params: { id: aliceSession } })).status).toBe(404);
    expect((await call(getSteps, "/x", { cookie: bob.cookie, params: { id: aliceSession } })).status).toBe(404);
    expect((await call(stop, "/x", { method: "POST", cookie: bob.cookie, params: { id: aliceSession } })).status).toBe(404);
    const response = await sendChat(bob.cookie, aliceSession, "hi");
    expect(response.status).toBe(404);
    expect(fake.requests).toHaveLength(0);
    const bobList = await call(listSessionsRoute, "/api/sessions", { cookie: bob.cookie });
    expect(bobList.json.sessions.map((session: { id: string }) => session.id)).not.toContain(aliceSession);
  });
});

describe("reloading a stopped run", () => {
  it("keeps the text that had streamed before Stop, with one notice", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "first part of a slow answer that will be cut off before the end", chunks: 20, chunkDelayMs: 100 }]);
    const response = await sendChat(cookie, sessionId, "go");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    // Wait until a few words have streamed (each delta is its own SSE event).
    while ((seen.match(/"type":"text-delta"/g) ?? []).length < 4) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${seen}`);
      seen += decoder.decode(value);
    }
    await call(stop, "/x", { method: "POST", cookie, params: { id: sessionId } });
    await waitForRun(sessionId);
    const view = (await call(getSession, "/x", { cookie, params: { id: sessionId } })).json;
    const parts = view.messages[1].parts;
    const text = parts.find((part: { type: string }) => part.type === "text");
    expect(text.text).toMatch(/^first part/);
    expect(parts.filter((part: { type: string }) => part.type === "data-notice").map((part: { data: { text: string } }) => part.data.text)).toEqual(["Stopped by the user."]);
    // The cut-off text is not replayed to the model as if it were a finished answer.
    fake.script([{ text: "ok" }]);
    await readUiStream(await sendChat(cookie, sessionId, "next"));
    expect(fake.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "assistant")).toEqual([]);
  });
});

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type TFakeLlm } from "@/tests/fake-llm/server";

/**
 * The fake is only useful if the official SDKs accept what it sends, so every test here drives it
 * through the real `openai` and `@anthropic-ai/sdk` clients over real HTTP.
 */
let fake: TFakeLlm;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  fake = await startFakeLlm();
  // maxRetries 0: a scripted error must reach the test once, not be retried into "script exhausted".
  openai = new OpenAI({ apiKey: "sk-test-openai", baseURL: fake.openaiBaseUrl, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: "sk-test-anthropic", authToken: null, baseURL: fake.anthropicBaseUrl, maxRetries: 0 });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
};

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

describe("OpenAI chat completions", () => {
  it("answers a non-streaming request with text, echoed model and scripted usage", async () => {
    fake.script([{ text: "Hello there!", usage: { inputTokens: 11, outputTokens: 3 } }]);
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-test");
    expect(completion.choices[0]?.message).toMatchObject({ role: "assistant", content: "Hello there!" });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
  });

  it("answers a non-streaming request with tool calls and estimates usage when none is scripted", async () => {
    fake.script([{ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }, { id: "call_custom", name: "get_time", arguments: "{}" }] }]);
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "weather?" }], tools: [weatherTool] });
    const message = completion.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_custom", type: "function", function: { name: "get_time", arguments: "{}" } },
    ]);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("sends string tool arguments verbatim, even when they are broken JSON", async () => {
    fake.script([{ toolCalls: [{ name: "write_file", arguments: '{"path": "a.txt", "content": "unterminated' }] }]);
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" ? call.function.arguments : undefined).toBe('{"path": "a.txt", "content": "unterminated');
  });

  it("streams text as several deltas with role first, finish_reason last and usage when asked", async () => {
    fake.script([{ text: "The quick brown fox jumps over the lazy dog.", usage: { inputTokens: 20, outputTokens: 10 } }]);
    const stream = await openai.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "tell me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const contentDeltas = chunks.flatMap((chunk) => (chunk.choices[0]?.delta.content ? [chunk.choices[0].delta.content] : []));
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(contentDeltas.length).toBeGreaterThanOrEqual(2);
    expect(contentDeltas.join("")).toBe("The quick brown fox jumps over the lazy dog.");
    const finishChunk = chunks.at(-2);
    expect(finishChunk?.choices[0]?.finish_reason).toBe("stop");
    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.model === "gpt-test")).toBe(true);
  });

  it("honours an explicit chunk count and sends no usage chunk unless asked", async () => {
    fake.script([{ text: "abcdef", chunks: 3 }]);
    const stream = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.flatMap((chunk) => (chunk.choices[0]?.delta.content ? [chunk.choices[0].delta.content] : []))).toEqual(["ab", "cd", "ef"]);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it("streams tool calls as an opening delta plus argument fragments the SDK reassembles", async () => {
    fake.script([
      {
        text: "Let me check.",
        toolCalls: [
          { name: "get_weather", arguments: { city: "Paris", unit: "celsius" } },
          { name: "get_time", arguments: { zone: "Europe/Paris" } },
        ],
      },
    ]);
    const stream = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }], tools: [weatherTool], stream: true });
    const toolDeltas = [];
    for await (const chunk of stream) toolDeltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    const firstDelta = toolDeltas.find((delta) => delta.index === 0);
    expect(firstDelta).toEqual({ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } });
    const fragments = toolDeltas.filter((delta) => delta.index === 0 && delta.id === undefined).map((delta) => delta.function?.arguments);
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(fragments.join(""))).toEqual({ city: "Paris", unit: "celsius" });

    // The SDK's own accumulator is what the app will most likely rely on.
    fake.script([{ text: "Let me check.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }, { name: "get_time", arguments: { zone: "UTC" } }] }]);
    const helper = openai.chat.completions.stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "x" }],
      tools: [weatherTool],
      stream_options: { include_usage: true },
    });
    const final = await helper.finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(message?.content).toBe("Let me check.");
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.tool_calls?.map((call) => (call.type === "function" ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : []))).toEqual([
      ["call_3", "get_weather", { city: "Paris" }],
      ["call_4", "get_time", { zone: "UTC" }],
    ]);
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("lists one model", async () => {
    const models = [];
    for await (const model of openai.models.list()) models.push(model.id);
    expect(models).toEqual(["fake-model"]);
  });
});

describe("OpenAI embeddings", () => {
  it("returns deterministic, distinct, unit-length vectors without consuming the script", async () => {
    fake.script([{ text: "still here" }]);
    // The SDK asks for base64 by default and decodes it; the float format must carry the same numbers.
    const first = await openai.embeddings.create({ model: "text-embedding-test", input: ["alpha", "beta"] });
    const again = await openai.embeddings.create({ model: "text-embedding-test", input: "alpha", encoding_format: "float" });
    const [alpha, beta] = first.data.map((item) => item.embedding);
    expect(alpha).toHaveLength(8);
    expect(again.data[0]?.embedding).toEqual(alpha);
    expect(beta).not.toEqual(alpha);
    const norm = Math.sqrt((alpha ?? []).reduce((sum, value) => sum + value * value, 0));
    expect(norm).toBeCloseTo(1, 5);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
    expect(first.usage.total_tokens).toBe(first.usage.prompt_tokens);

    const wide = await openai.embeddings.create({ model: "text-embedding-test", input: "alpha", dimensions: 64 });
    expect(wide.data[0]?.embedding).toHaveLength(64);

    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    expect(completion.choices[0]?.message.content).toBe("still here");
    expect(fake.requests.map((request) => request.api)).toEqual(["openai-embeddings", "openai-embeddings", "openai-embeddings", "openai"]);
  });
});

describe("Anthropic messages", () => {
  it("answers a non-streaming request with text and tool_use blocks", async () => {
    fake.script([{ text: "Checking.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], usage: { inputTokens: 30, outputTokens: 7 } }]);
    const message = await anthropic.messages.create({ model: "claude-test", max_tokens: 256, messages: [{ role: "user", content: "weather?" }] });
    expect(message).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 7 },
    });
  });

  it("streams text and tool_use blocks that MessageStream assembles into the final message", async () => {
    fake.script([{ text: "Let me look that up for you.", toolCalls: [{ name: "search", arguments: { query: "fake llm servers", limit: 5 } }], usage: { inputTokens: 42, outputTokens: 17 } }]);
    const stream = anthropic.messages.stream({ model: "claude-test", max_tokens: 256, messages: [{ role: "user", content: "search" }] });
    const textDeltas: string[] = [];
    const jsonFragments: string[] = [];
    stream.on("text", (delta) => textDeltas.push(delta));
    stream.on("inputJson", (fragment) => jsonFragments.push(fragment));
    const message = await stream.finalMessage();
    expect(textDeltas.length).toBeGreaterThanOrEqual(2);
    expect(jsonFragments.length).toBeGreaterThanOrEqual(2);
    expect(message.content).toEqual([
      { type: "text", text: "Let me look that up for you." },
      { type: "tool_use", id: "toolu_1", name: "search", input: { query: "fake llm servers", limit: 5 } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 42, output_tokens: 17 });
  });

  it("streams plain text ending with end_turn, or the scripted stop reason", async () => {
    fake.script([{ text: "Done.", stopReason: "max_tokens" }]);
    const message = await anthropic.messages.stream({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "Done." }]);
    expect(message.stop_reason).toBe("max_tokens");

    fake.script([{ text: "Done." }]);
    const plain = await anthropic.messages.create({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    expect(plain.stop_reason).toBe("end_turn");
  });
});

describe("failures", () => {
  it("sends a scripted error status with retry-after that reaches the SDKs as APIError", async () => {
    fake.script([
      { status: 429, errorMessage: "Slow down, test.", headers: { "retry-after": "1" } },
      { status: 429, errorMessage: "Slow down, test.", headers: { "retry-after": "1" } },
    ]);
    const openaiError = await caught(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }));
    expect(openaiError).toBeInstanceOf(OpenAI.RateLimitError);
    const openaiApiError = openaiError as InstanceType<typeof OpenAI.APIError>;
    expect(openaiApiError.status).toBe(429);
    expect(openaiApiError.headers?.get("retry-after")).toBe("1");
    expect(openaiApiError.message).toContain("Slow down, test.");
    expect(openaiApiError.code).toBe("rate_limit_exceeded");

    const anthropicError = await caught(anthropic.messages.create({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }], stream: true }));
    expect(anthropicError).toBeInstanceOf(Anthropic.RateLimitError);
    const anthropicApiError = anthropicError as InstanceType<typeof Anthropic.APIError>;
    expect(anthropicApiError.status).toBe(429);
    expect(anthropicApiError.headers?.get("retry-after")).toBe("1");
    expect(anthropicApiError.error).toEqual({ type: "error", error: { type: "rate_limit_error", message: "Slow down, test." } });
  });

  it("makes a hanging request fail with the SDK's timeout error", async () => {
    fake.script([{ hang: true }]);
    const started = Date.now();
    const error = await caught(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }, { timeout: 500 }));
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it("close() resolves while a request hangs, and the client sees the connection drop", async () => {
    const own = await startFakeLlm();
    own.script([{ hang: true }]);
    const client = new OpenAI({ apiKey: "sk-test", baseURL: own.openaiBaseUrl, maxRetries: 0 });
    const pending = caught(client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }));
    await expect.poll(() => own.requests.length).toBe(1);
    await own.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it("waits delayMs before answering", async () => {
    fake.script([{ text: "late", delayMs: 300 }]);
    const started = Date.now();
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    expect(completion.choices[0]?.message.content).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("breaks an OpenAI stream midway so that iterating it throws after the first deltas", async () => {
    fake.script([{ text: "This stream will be cut off before it ends.", breakAfterChunks: 3 }]);
    const stream = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }], stream: true });
    const received: string[] = [];
    const error = await caught(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? "");
      })(),
    );
    expect(error).toBeInstanceOf(Error);
    expect(received).toHaveLength(3);
    expect(received.join("").length).toBeGreaterThan(0);
  });

  it("breaks an Anthropic stream midway so that finalMessage() rejects", async () => {
    fake.script([{ text: "This stream will be cut off before it ends.", breakAfterChunks: 4 }]);
    const stream = anthropic.messages.stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "x" }] });
    const textDeltas: string[] = [];
    stream.on("text", (delta) => textDeltas.push(delta));
    const error = await caught(stream.finalMessage());
    expect(error).toBeInstanceOf(Error);
    expect(textDeltas.length).toBeGreaterThan(0);
  });

  it("spaces stream events by chunkDelayMs", async () => {
    fake.script([{ text: "abcdef", chunks: 3, chunkDelayMs: 100 }]);
    const stream = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }], stream: true });
    const arrivals: number[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) arrivals.push(Date.now());
    expect(arrivals).toHaveLength(3);
    expect(arrivals[2]! - arrivals[0]!).toBeGreaterThanOrEqual(180);
  });

  it("cuts a non-streaming body in half when breakAfterChunks is set", async () => {
    fake.script([{ text: "never complete", breakAfterChunks: 0 }]);
    const error = await caught(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(OpenAI.APIError);
  });

  it("turns a throwing script function into a 500 that names the request", async () => {
    fake.script(() => {
      throw new Error("unexpected prompt");
    });
    const error = await caught(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }));
    expect((error as Error).message).toContain("fake-llm: the script function threw for request 1: unexpected prompt");
  });

  it("answers with a clear 500 when the script is exhausted", async () => {
    fake.script([{ text: "only one" }]);
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    const error = await caught(anthropic.messages.create({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }] }));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain("fake-llm: no scripted reply left for request 2");

    fake.reset();
    const unscripted = await caught(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] }));
    expect((unscripted as Error).message).toContain("fake-llm: no scripted reply left for request 1");
  });
});

describe("script and request log", () => {
  it("records path, body and lower-cased auth headers of both APIs in order", async () => {
    fake.script([{ text: "one" }, { text: "two" }]);
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "first question" }] });
    await anthropic.messages.create({ model: "claude-test", max_tokens: 16, system: "be brief", messages: [{ role: "user", content: "second question" }] });
    const [first, second] = fake.requests;
    expect(fake.requests).toHaveLength(2);
    expect(first).toMatchObject({ api: "openai", path: "/v1/chat/completions" });
    expect(first?.headers.authorization).toBe("Bearer sk-test-openai");
    expect(first?.body).toEqual({ model: "gpt-test", messages: [{ role: "user", content: "first question" }] });
    expect(second).toMatchObject({ api: "anthropic", path: "/v1/messages" });
    // @anthropic-ai/sdk 1.x sends the API key as a bearer token, not as x-api-key.
    expect(second?.headers.authorization).toBe("Bearer sk-test-anthropic");
    expect(second?.headers["anthropic-version"]).toBeTruthy();
    expect(second?.body).toMatchObject({ model: "claude-test", system: "be brief", messages: [{ role: "user", content: "second question" }] });
    expect(second!.receivedAt).toBeGreaterThanOrEqual(first!.receivedAt);
  });

  it("lower-cases header names, so x-api-key is found however a client spells it", async () => {
    fake.script([{ text: "ok" }]);
    const response = await fetch(`${fake.anthropicBaseUrl}/v1/messages`, {
      method: "POST",
      headers: { "X-Api-Key": "sk-raw", "Content-Type": "application/json" },
      body: JSON.stringify({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    });
    expect(response.status).toBe(200);
    expect(fake.requests[0]?.headers["x-api-key"]).toBe("sk-raw");
    expect(Object.keys(fake.requests[0]?.headers ?? {}).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it("asks a script function for every request, passing the recorded request", async () => {
    fake.script((request) => ({ text: `you said: ${request.body.messages.at(-1).content}` }));
    const first = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "ping" }] });
    const second = await anthropic.messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "pong" }] });
    expect(first.choices[0]?.message.content).toBe("you said: ping");
    expect(second.content).toEqual([{ type: "text", text: "you said: pong" }]);
  });

  it("does not consume the array the test passed to script()", async () => {
    const replies = [{ text: "a" }];
    fake.script(replies);
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    expect(replies).toHaveLength(1);
  });

  it("answers unknown paths with a 404 JSON body", async () => {
    const response = await fetch(`${fake.url}/v1/completions`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toContain("no route for POST /v1/completions");
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fitToContextWindow, splitIntoTurns } from "@/lib/agent/context-window";
import { backoffDelayMs, classifyError, parseRetryAfter, ProviderChainError, streamWithFallback, type TChainEvent } from "@/lib/providers/provider-chain";
import type { TMessage, TModelEvent, TProvider } from "@/lib/providers/types";
import { evaluateExpression } from "@/lib/tools/calculator";
import { defineTool, ToolRegistry } from "@/lib/tools/registry";

describe("calculator", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["10 % 4", 2],
    ["sqrt(16) + abs(-3)", 7],
    ["max(1, 5, 3)", 5],
    ["2 * pi", Math.PI * 2],
    ["1.5e3 / 3", 500],
    ["3 × 4 ÷ 2", 6],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ["1 / 0", /division by zero/],
    ["2 +", /unexpected end/],
    ["process.exit(1)", /unknown name process/],
    ["alert(1)", /unknown function alert/],
    ["1; 2", /unexpected ";"/],
    ["(".repeat(200) + "1" + ")".repeat(200), /too deeply nested/],
  ])("refuses %s", (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrowError(message);
  });
});

describe("tool registry", () => {
  it("exposes a zod schema as JSON Schema", () => {
    const registry = new ToolRegistry().register(
      defineTool({ name: "greet", description: "Say hi", input: z.object({ name: z.string().describe("who"), loud: z.boolean().optional() }), risk: "read", execute: async () => "hi" }),
    );
    expect(registry.definitions()).toEqual([
      {
        name: "greet",
        description: "Say hi",
        inputSchema: { type: "object", properties: { name: { type: "string", description: "who" }, loud: { type: "boolean" } }, required: ["name"] },
      },
    ]);
    expect(() => registry.register(defineTool({ name: "greet", description: "", input: z.object({}), risk: "read", execute: async () => "" }))).toThrow(/already taken by built-in/);
  });

});

describe("retry policy", () => {
  const policy = { retries: 2, baseDelayMs: 100, maxDelayMs: 1_000, attemptTimeoutMs: 1_000 };

  it("retries 429, 5xx, timeouts and network errors, but not other 4xx", () => {
    expect(classifyError(Object.assign(new Error("slow down"), { status: 429 })).retryable).toBe(true);
    expect(classifyError(Object.assign(new Error("overloaded"), { status: 529 })).retryable).toBe(true);
    expect(classifyError(Object.assign(new Error("bad"), { status: 400 })).retryable).toBe(false);
    expect(classifyError(Object.assign(new Error("no key"), { status: 401 })).retryable).toBe(false);
    expect(classifyError(new TypeError("terminated")).retryable).toBe(true);
    expect(classifyError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { name: "APIConnectionError" })).retryable).toBe(true);
  });

  it("reads retry-after as seconds, milliseconds or an HTTP date", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3_000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  it("backs off exponentially with jitter, capped, but never below retry-after", () => {
    expect(backoffDelayMs(0, policy, undefined, () => 0)).toBe(50);
    expect(backoffDelayMs(0, policy, undefined, () => 1)).toBe(100);
    expect(backoffDelayMs(3, policy, undefined, () => 1)).toBe(800);
    expect(backoffDelayMs(10, policy, undefined, () => 1)).toBe(1_000);
    expect(backoffDelayMs(0, policy, 5_000, () => 0)).toBe(5_000);
  });

  function provider(name: "openai" | "anthropic", attempts: (() => AsyncIterable<TModelEvent>)[]): TProvider & { calls: number } {
    const state = {
      name,
      model: `${name}-model`,
      toolCalling: "native" as const,
      contextWindowTokens: 10_000,
      maxOutputTokens: 100,
      calls: 0,
      stream() {
        const attempt = attempts[Math.min(state.calls, attempts.length - 1)]!;
        state.calls++;
        return attempt();
      },
    };
    return state;
  }
  const fail = (status: number, headers?: Headers) =>
    async function* (): AsyncIterable<TModelEvent> {
      throw Object.assign(new Error(`status ${status}`), { status, headers });
    };
  const succeed = (text: string) =>
    async function* (): AsyncIterable<TModelEvent> {
      yield { type: "text-delta", text };
      yield { type: "finish", reason: "stop" };
    };

  async function collect(providers: TProvider[], delays: number[] = []) {
    const events: TChainEvent[] = [];
    const sleep = async (milliseconds: number) => {
      delays.push(milliseconds);
    };
    for await (const event of streamWithFallback(providers, { system: "", messages: [], tools: [] }, policy, { sleep, random: () => 1 })) events.push(event);
    return events;
  }

  it("retries a retryable failure on the same provider, honouring retry-after", async () => {
    const primary = provider("anthropic", [fail(429, new Headers({ "retry-after": "2" })), succeed("ok")]);
    const delays: number[] = [];
    const events = await collect([primary], delays);
    expect(primary.calls).toBe(2);
    expect(delays).toEqual([2_000]);
    expect(events.at(-1)).toMatchObject({ type: "turn-complete", provider: "anthropic" });
  });

  it("moves to the next provider at once on a non-retryable 4xx", async () => {
    const primary = provider("anthropic", [fail(401)]);
    const secondary = provider("openai", [succeed("from openai")]);
    const delays: number[] = [];
    const events = await collect([primary, secondary], delays);
    expect(primary.calls).toBe(1);
    expect(delays).toEqual([]);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([{ type: "text-delta", text: "from openai" }]);
  });

  it("fails with every provider's error named when all fail", async () => {
    const primary = provider("anthropic", [fail(500)]);
    const secondary = provider("openai", [fail(403)]);
    const error = await collect([primary, secondary]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderChainError);
    expect((error as Error).message).toBe(
      "Every model provider failed: anthropic (anthropic-model): HTTP 500 status 500 (after 3 attempts); openai (openai-model): HTTP 403 status 403.",
    );
    expect(primary.calls).toBe(3);
  });

  it("tells the consumer to discard text from an attempt that broke midway", async () => {
    const breaking = async function* (): AsyncIterable<TModelEvent> {
      yield { type: "text-delta", text: "half" };
      throw new TypeError("terminated");
    };
    const events = await collect([provider("openai", [breaking, succeed("whole")])]);
    expect(events.map((event) => event.type)).toEqual(["attempt-start", "text-delta", "text-discard", "attempt-failed", "attempt-start", "text-delta", "turn-complete"]);
  });

  it("fails an attempt that goes silent (idle timeout) and retries it", async () => {
    const hanging = async function* (): AsyncIterable<TModelEvent> {
      await new Promise(() => {});
    };
    const fast = { ...policy, attemptTimeoutMs: 50 };
    const p = provider("openai", [hanging, succeed("late but fine")]);
    const events: TChainEvent[] = [];
    for await (const event of streamWithFallback([p], { system: "", messages: [], tools: [] }, fast, { sleep: async () => {} })) events.push(event);
    expect(events.find((event) => event.type === "attempt-failed")).toMatchObject({ error: "timed out (no response for 0 s)", willRetry: true });
    expect(events.at(-1)).toMatchObject({ type: "turn-complete" });
  });
});

describe("context window", () => {
  const user = (text: string): TMessage => ({ role: "user", content: [{ type: "text", text }] });
  const assistant = (text: string): TMessage => ({ role: "assistant", text, toolCalls: [] });

  it("keeps everything when it fits", async () => {
    const messages = [user("hi"), assistant("hello")];
    const result = await fitToContextWindow({ provider: { contextWindowTokens: 10_000, maxOutputTokens: 100 }, system: "s", tools: [], messages });
    expect(result).toMatchObject({ messages, droppedTurns: 0, summarized: false });
  });

  it("keeps the newest turns whole and summarises the dropped ones", async () => {
    const messages: TMessage[] = [];
    for (let turn = 0; turn < 20; turn++) {
      messages.push(user(`question ${turn} ${"x".repeat(400)}`));
      messages.push({ role: "assistant", text: "", toolCalls: [{ id: `c${turn}`, name: "t", arguments: {} }] });
      messages.push({ role: "tool", toolCallId: `c${turn}`, toolName: "t", content: [{ type: "text", text: "r".repeat(400) }], isError: false });
      messages.push(assistant(`answer ${turn}`));
    }
    let transcript = "";
    const result = await fitToContextWindow({
      provider: { contextWindowTokens: 2_000, maxOutputTokens: 200 },
      system: "system prompt",
      tools: [],
      messages,
      summarize: async (text) => {
        transcript = text;
        return "They asked 20 questions.";
      },
    });
    expect(result.summarized).toBe(true);
    expect(result.droppedTurns).toBeGreaterThan(0);
    expect(result.messages[0]).toEqual(user("[Summary of the earlier conversation, which was left out to fit the context window]\nThey asked 20 questions."));
    const kept = result.messages.slice(1);
    expect(kept.at(-1)).toEqual(assistant("answer 19"));
    expect(splitIntoTurns(kept).every((turn) => turn[0]!.role === "user")).toBe(true);
    expect(kept.filter((message) => message.role === "tool").length).toBe(kept.filter((message) => message.role === "assistant" && message.toolCalls.length).length);
    expect(transcript).toContain("answer");
    expect(result.estimatedTokens).toBeLessThan(2_000);
  });

  it("falls back to a plain note when summarising fails", async () => {
    const messages = Array.from({ length: 30 }, (_, index) => user(`m${index} ${"y".repeat(300)}`));
    const result = await fitToContextWindow({
      provider: { contextWindowTokens: 1_500, maxOutputTokens: 100 },
      system: "",
      tools: [],
      messages,
      summarize: async () => {
        throw new Error("provider down");
      },
    });
    expect(result.summarized).toBe(false);
    expect((result.messages[0] as { content: { text: string }[] }).content[0]!.text).toMatch(/^\[\d+ earlier messages were left out/);
  });
});

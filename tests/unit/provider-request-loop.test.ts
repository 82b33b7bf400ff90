import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AnthropicProvider } from "@/lib/providers/anthropic-provider";
import { OpenAiProvider } from "@/lib/providers/openai-provider";
import type { TModelEvent, TProvider } from "@/lib/providers/types";
import { startFakeLlm, type TFakeLlm } from "@/tests/fake-llm/server";

/**
 * The request loop both providers share (lib/providers/request-loop.ts), through each provider's
 * own SDK over real HTTP to the fake LLM: one turn assembled from either API's stream events.
 */
let fake: TFakeLlm;
const providers: Record<"openai" | "anthropic", () => TProvider> = {
  openai: () => new OpenAiProvider({ apiKey: "test", baseUrl: fake.openaiBaseUrl, model: "fake-model", toolCalling: "native", contextWindowTokens: 100_000, maxOutputTokens: 500 }),
  anthropic: () => new AnthropicProvider({ apiKey: "test", baseUrl: fake.anthropicBaseUrl, model: "fake-model", contextWindowTokens: 100_000, maxOutputTokens: 500 }),
};

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const tools = [{ name: "get_weather", description: "Weather in a city", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];

async function turn(provider: TProvider): Promise<TModelEvent[]> {
  const events: TModelEvent[] = [];
  const request = { system: "Be brief.", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Weather?" }] }], tools };
  for await (const event of provider.stream(request)) events.push(event);
  return events;
}

describe.each(["openai", "anthropic"] as const)("the %s provider on the shared request loop", (name) => {
  it("streams text, assembles tool calls from their pieces (broken JSON kept as text), then usage and the finish reason", async () => {
    fake.script([
      {
        text: "Let me look that up for you.",
        chunks: 4,
        toolCalls: [
          { name: "get_weather", arguments: { city: "Paris", days: [1, 2] } },
          { name: "get_weather", arguments: '{"city": "Ber' },
        ],
        usage: { inputTokens: 120, outputTokens: 15 },
      },
    ]);
    const events = await turn(providers[name]());
    const texts = events.filter((event) => event.type === "text-delta");
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((event) => event.text).join("")).toBe("Let me look that up for you.");
    const calls = events.flatMap((event) => (event.type === "tool-call" ? [event.call] : []));
    expect(calls).toEqual([
      { id: expect.any(String), name: "get_weather", arguments: { city: "Paris", days: [1, 2] } },
      { id: expect.any(String), name: "get_weather", arguments: '{"city": "Ber' },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(events.slice(-2)).toEqual([
      { type: "usage", usage: { inputTokens: 120, outputTokens: 15 } },
      { type: "finish", reason: "tool-calls" },
    ]);
    // The tools went out in the API's own shape.
    const body = fake.requests[0]!.body;
    expect(name === "openai" ? body.tools[0].function.name : body.tools[0].name).toBe("get_weather");
    expect(body.stream).toBe(true);
  });

  it("reports the prompt cache's share of the input when the API does", async () => {
    fake.script([{ text: "cached", usage: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 800, ...(name === "anthropic" ? { cacheCreationTokens: 150 } : {}) } }]);
    const usage = (await turn(providers[name]())).find((event) => event.type === "usage");
    // Input counts cached input too; the cache figures say how much of it the cache served or took.
    expect(usage).toEqual({ type: "usage", usage: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 800, ...(name === "anthropic" ? { cacheCreationTokens: 150 } : {}) } });
  });

  it("maps the API's stop reasons", async () => {
    const reasons = name === "openai" ? { stop: "stop", length: "length", content_filter: "other" } : { end_turn: "stop", max_tokens: "length", refusal: "other" };
    for (const [stopReason, expected] of Object.entries(reasons)) {
      fake.script([{ text: "Partial answer", stopReason }]);
      const events = await turn(providers[name]());
      expect(events.at(-1), stopReason).toEqual({ type: "finish", reason: expected });
      expect(events.some((event) => event.type === "tool-call")).toBe(false);
    }
  });
});

it("treats an OpenAI-compatible reply with tool calls as a tool-call turn even when it says stop", async () => {
  fake.script([{ toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }], stopReason: "stop" }]);
  const events = await turn(providers.openai());
  expect(events.filter((event) => event.type === "tool-call")).toHaveLength(1);
  expect(events.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
});

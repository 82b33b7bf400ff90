import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgent, type TAgentEvent, type TAgentRecorder, type TStepHandle } from "@/lib/agent/run-agent";
import type { TModelEvent, TModelRequest, TProvider, TToolCall } from "@/lib/providers/types";
import { defineTool, ToolRegistry } from "@/lib/tools/registry";

/** The bare loop with an in-memory provider and recorder: ordering, concurrency, pauses. */
function scriptedProvider(turns: TToolCall[][], finalText = "done"): TProvider & { requests: TModelRequest[] } {
  const requests: TModelRequest[] = [];
  return {
    name: "openai",
    model: "scripted",
    toolCalling: "native",
    contextWindowTokens: 100_000,
    maxOutputTokens: 1_000,
    requests,
    async *stream(request): AsyncIterable<TModelEvent> {
      requests.push(request);
      const calls = turns[requests.length - 1];
      if (calls) {
        for (const call of calls) yield { type: "tool-call", call };
        yield { type: "finish", reason: "tool-calls" };
      } else {
        yield { type: "text-delta", text: finalText };
        yield { type: "finish", reason: "stop" };
      }
    },
  };
}

function memoryRecorder() {
  const log: string[] = [];
  let counter = 0;
  const handle = (): TStepHandle => ({ id: `step-${++counter}`, key: `s${String(counter).padStart(4, "0")}` });
  const recorder: TAgentRecorder = {
    async modelCallStarted() {
      log.push("model:start");
      return handle();
    },
    async modelCallFinished() {
      log.push("model:done");
    },
    async modelCallFailed(_step, error) {
      log.push(`model:failed ${error}`);
    },
    async toolCallStarted(call) {
      log.push(`tool:start ${call.name}`);
      return handle();
    },
    async toolCallFinished(_step, result) {
      log.push(`tool:done ${result.isError ? "error" : "ok"}`);
    },
    async note(text) {
      log.push(`note ${text}`);
    },
    async approvalRequested(call) {
      log.push(`approval ${call.name}`);
      return { approvalId: "approval-1", expiresAt: new Date(0) };
    },
  };
  return { recorder, log };
}

function tools(active: { now: number; max: number }, order: string[]) {
  const slow = (name: string, risk: "read" | "write") =>
    defineTool({
      name,
      description: name,
      input: z.object({}),
      risk,
      async execute() {
        active.now++;
        active.max = Math.max(active.max, active.now);
        order.push(`begin ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`end ${name}`);
        active.now--;
        return `${name} ok`;
      },
    });
  return new ToolRegistry().register(slow("read_a", "read")).register(slow("read_b", "read")).register(slow("write_c", "write"));
}

const base = {
  retryPolicy: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, attemptTimeoutMs: 5_000 },
  system: "test",
  maxIterations: 5,
  maxParallelTools: 4,
  toolContext: { userId: "u", sessionId: "s" },
};

describe("agent loop", () => {
  it("runs consecutive read-only calls concurrently and other calls alone, in order; records each step before and after", async () => {
    const active = { now: 0, max: 0 };
    const order: string[] = [];
    const call = (name: string, id: string) => ({ id, name, arguments: {} });
    const provider = scriptedProvider([[call("read_a", "1"), call("read_b", "2"), call("write_c", "3"), call("read_a", "4")]]);
    const { recorder, log } = memoryRecorder();
    const events: TAgentEvent[] = [];
    const outcome = await runAgent({ ...base, providers: [provider], tools: tools(active, order), history: [], signal: new AbortController().signal, recorder, subscribers: [(event) => events.push(event)] });
    expect(outcome).toEqual({ status: "completed", text: "done" });
    expect(order.slice(0, 2).sort()).toEqual(["begin read_a", "begin read_b"]);
    expect(order.indexOf("begin write_c")).toBeGreaterThan(Math.max(order.indexOf("end read_a"), order.indexOf("end read_b")));
    expect(order.lastIndexOf("begin read_a")).toBeGreaterThan(order.indexOf("end write_c"));
    expect(active.max).toBe(2);
    expect(log.filter((entry) => entry.startsWith("tool:start")).length).toBe(4);
    // The results go back to the model in the order of the calls.
    const toolMessages = provider.requests[1]!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => (message.role === "tool" ? message.toolCallId : ""))).toEqual(["1", "2", "3", "4"]);
  });

  it("pauses at the first call that needs approval, after running the allowed calls before it", async () => {
    const order: string[] = [];
    const call = (name: string, id: string) => ({ id, name, arguments: {} });
    const provider = scriptedProvider([[call("read_a", "1"), call("write_c", "2"), call("read_b", "3")]]);
    const { recorder, log } = memoryRecorder();
    const events: TAgentEvent[] = [];
    const outcome = await runAgent({
      ...base,
      providers: [provider],
      tools: tools({ now: 0, max: 0 }, order),
      history: [],
      signal: new AbortController().signal,
      recorder,
      subscribers: [(event) => events.push(event)],
      authorize: (_call, tool) => (tool?.risk === "read" ? "allow" : "ask"),
    });
    expect(outcome).toEqual({ status: "paused", approvalId: "approval-1" });
    expect(order).toEqual(["begin read_a", "end read_a"]);
    expect(log).toContain("approval write_c");
    expect(events.find((event) => event.type === "approval-request")).toMatchObject({ call: { name: "write_c" }, preview: { title: "Run write_c" } });
    expect(provider.requests).toHaveLength(1);
  });

  it("answers denied calls with an observation and never runs them", async () => {
    const order: string[] = [];
    const provider = scriptedProvider([[{ id: "1", name: "write_c", arguments: {} }]]);
    const { recorder } = memoryRecorder();
    await runAgent({
      ...base,
      providers: [provider],
      tools: tools({ now: 0, max: 0 }, order),
      history: [],
      signal: new AbortController().signal,
      recorder,
      subscribers: [],
      authorize: () => "deny",
    });
    expect(order).toEqual([]);
    const result = provider.requests[1]!.messages.find((message) => message.role === "tool");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^Denied by policy/) }] });
  });
});

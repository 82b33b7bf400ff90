import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { toApprovalView } from "@/lib/approvals/approval-view";
import { toolOutputView } from "@/lib/channels/web/tool-output-view";
import { runStreamResponse, toUiChunks, uiStreamResponse, type TChatChunk } from "@/lib/channels/web/ui-stream";
import { createLocalRun, endLocalRun, followLocalRun, publishLocal, watchLocalRun } from "@/lib/runs/local-runs";
import type { TRunEvent } from "@/lib/runs/run-types";

async function collect(events: TRunEvent[]) {
  async function* source() {
    yield* events;
  }
  const chunks: { type: string; [key: string]: unknown }[] = [];
  for await (const chunk of toUiChunks(source())) chunks.push(chunk as never);
  return chunks;
}

describe("UI message stream", () => {
  it("passes screenshots from tools to the chat as data URLs", async () => {
    const content = [
      { type: "text" as const, text: "page screenshot" },
      { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" },
    ];
    expect(toolOutputView({ content, isError: false, durationMs: 1, stepKey: "s0001" }).images).toEqual(["data:image/png;base64,iVBORw0KGgo="]);
    expect(toolOutputView({ content: [{ type: "text", text: "no images" }], isError: false, durationMs: 1, stepKey: "s0001" }).images).toBeUndefined();
    const chunks = await collect([
      { type: "tool-start", stepId: "a", stepKey: "s0002", call: { id: "c1", name: "browser_screenshot", arguments: {} } },
      { type: "tool-end", stepId: "a", stepKey: "s0002", callId: "c1", content, isError: false, durationMs: 12 },
    ]);
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")).toMatchObject({
      toolCallId: "c1",
      output: { text: "page screenshot", images: ["data:image/png;base64,iVBORw0KGgo="], durationMs: 12, step: "s0002" },
    });
  });

  it("replaces text discarded after a failed attempt and closes text before tool calls", async () => {
    const chunks = await collect([
      { type: "text-delta", text: "half" },
      { type: "text-discard" },
      { type: "text-delta", text: "whole" },
      { type: "tool-start", stepId: "a", stepKey: "s0003", call: { id: "c", name: "calculator", arguments: { expression: "1" } } },
    ]);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      "start",
      "text-start",
      "text-delta",
      "text-end",
      "data-text-discard",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-available",
      "finish",
    ]);
    expect(chunks[4]).toMatchObject({ data: { textId: "text-1" } });
  });

  it("never sends a tool result for a call the stream did not announce (useChat would end the stream with an error)", async () => {
    const content = [{ type: "text" as const, text: "Denied" }];
    const chunks = await collect([
      { type: "tool-end", stepId: "x", stepKey: "s0004", callId: "unseen", content, isError: true, durationMs: 0 },
      { type: "tool-start", stepId: "y", stepKey: "s0005", call: { id: "seen", name: "write_file", arguments: {} } },
      { type: "tool-end", stepId: "y", stepKey: "s0005", callId: "seen", content, isError: true, durationMs: 0 },
    ]);
    expect(chunks.filter((chunk) => chunk.type.startsWith("tool-")).map((chunk) => `${chunk.type} ${String(chunk.toolCallId)}`)).toEqual([
      "tool-input-available seen",
      "tool-output-available seen",
    ]);
  });

  it("marks provider retries as such and says nothing when a run pauses (the approval card does)", async () => {
    const chunks = await collect([
      { type: "attempt-failed", provider: "openai", model: "m", error: "HTTP 503", willRetry: true },
      { type: "run-end", outcome: { status: "paused", approvalId: "a" } },
    ]);
    expect(chunks.find((chunk) => chunk.type === "data-notice")).toMatchObject({ data: { tone: "warning", kind: "retry" } });
    expect(chunks.filter((chunk) => chunk.type === "data-notice")).toHaveLength(1);
  });

  it("announces an approval as the same view the stored history shows (one builder: lib/approvals/approval-view.ts)", async () => {
    const call = { id: "c7", name: "write_file", arguments: { path: "a.md" } };
    const preview = { title: "Write a.md", path: "a.md" };
    const later = new Date(Date.now() + 60_000);
    const chunks = await collect([{ type: "approval-request", approvalId: "ap1", stepKey: "s0007", call, risk: "write", preview, expiresAt: later.toISOString() }]);
    const announced = chunks.find((chunk) => chunk.type === "data-approval")!.data;
    const stored = toApprovalView({ id: "ap1", toolCallId: "c7", toolName: "write_file", risk: "write", preview, status: "PENDING", reason: null, expiresAt: later });
    expect(announced).toEqual(stored);
    expect(stored).toMatchObject({ approvalId: "ap1", status: "pending", reason: null, expiresAt: later.toISOString() });
    // Past its expiry a pending approval reads "expired", wherever it is shown.
    const past = await collect([{ type: "approval-request", approvalId: "ap2", stepKey: "s0008", call, risk: "write", preview, expiresAt: new Date(Date.now() - 1_000).toISOString() }]);
    expect(past.find((chunk) => chunk.type === "data-approval")).toMatchObject({ data: { approvalId: "ap2", status: "expired" } });
  });

  it("writes the same bytes and headers as the AI SDK's createUIMessageStreamResponse", async () => {
    const chunks: TChatChunk[] = [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "Grüße, \"world\" ✓\n" },
      { type: "text-end", id: "t1" },
      { type: "data-notice", data: { text: "careful", tone: "warning" } } as TChatChunk,
      { type: "finish-step" },
      { type: "finish" },
    ];
    async function* source() {
      yield* chunks;
    }
    const ours = uiStreamResponse(source());
    const theirs = createUIMessageStreamResponse({
      stream: new ReadableStream<UIMessageChunk>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
          controller.close();
        },
      }),
      headers: { "cache-control": "no-cache, no-transform" },
    });
    expect(await ours.text()).toBe(await theirs.text());
    expect(Object.fromEntries(ours.headers)).toEqual(Object.fromEntries(theirs.headers));
  });

  it("streams a run by push with the same bytes as following it, published across turns of the event loop", async () => {
    const events: TRunEvent[] = [
      { type: "model-start", stepId: "m", stepKey: "s0002" } as TRunEvent,
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "tool-start", stepId: "t", stepKey: "s0003", call: { id: "c1", name: "calculator", arguments: { expression: "1+1" } } },
      { type: "tool-end", stepId: "t", stepKey: "s0003", callId: "c1", content: [{ type: "text", text: "2" }], isError: false, durationMs: 3 },
      { type: "run-end", outcome: { status: "failed", error: "boom" } } as TRunEvent,
    ];
    const run = createLocalRun({ id: "r1", sessionId: `s-${Math.random()}`, userId: "u", trigger: "web", controller: new AbortController() });
    const pushed = runStreamResponse((onEvents) => watchLocalRun(run, onEvents));
    const text = pushed.text();
    publishLocal(run, events[0]!);
    for (const event of events.slice(1)) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      publishLocal(run, event);
    }
    endLocalRun(run);
    const followed = await uiStreamResponse(toUiChunks(followLocalRun(run))).text();
    expect(await text).toBe(followed);
    expect(followed).toContain('"type":"error","errorText":"boom"');
    expect(followed.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("stops watching when asked to, and ends the stream when the signal aborts", async () => {
    const run = createLocalRun({ id: "r2", sessionId: `s-${Math.random()}`, userId: "u", trigger: "web", controller: new AbortController() });
    const leaving = new AbortController();
    const response = runStreamResponse((onEvents) => watchLocalRun(run, onEvents, leaving.signal));
    publishLocal(run, { type: "text-delta", text: "partial" });
    await new Promise((resolve) => setTimeout(resolve, 1));
    leaving.abort();
    const text = await response.text();
    expect(text).toContain('"delta":"partial"');
    expect(text.endsWith('data: {"type":"finish"}\n\ndata: [DONE]\n\n')).toBe(true);
    // Nothing listens any more: the run itself goes on without this follower.
    expect(run.listeners.size).toBe(0);
    endLocalRun(run);
  });

  it("stops watching when the browser goes away, and the run's later events go nowhere", async () => {
    const run = createLocalRun({ id: "r3", sessionId: `s-${Math.random()}`, userId: "u", trigger: "web", controller: new AbortController() });
    const response = runStreamResponse((onEvents) => watchLocalRun(run, onEvents));
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(run.listeners.size).toBe(0);
    publishLocal(run, { type: "text-delta", text: "after" });
    endLocalRun(run);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(run.events).toHaveLength(1);
  });
});

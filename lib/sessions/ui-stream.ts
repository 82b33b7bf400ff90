import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";
import type { TContentPart } from "@/lib/providers/types";
import type { TRunEvent } from "./run-session";

/**
 * Turns run events into the AI SDK UI message stream protocol, which `useChat` consumes: text
 * deltas, tool calls as dynamic tool parts (never raw JSON), one UI step per model call, and our
 * own data parts for notices, step keys and discarded text (a provider that failed midway).
 */
/** Screenshots from a tool, as data URLs the tool card can show. */
export function imagesOf(content: TContentPart[]): string[] | undefined {
  const images = content.filter((part) => part.type === "image").map((part) => (part.type === "image" ? `data:${part.mediaType};base64,${part.data}` : ""));
  return images.length ? images : undefined;
}

export async function* toUiChunks(events: AsyncIterable<TRunEvent>): AsyncIterable<UIMessageChunk> {
  let textId: string | undefined;
  let counter = 0;
  const closeText = function* (): Generator<UIMessageChunk> {
    if (textId) yield { type: "text-end", id: textId };
    textId = undefined;
  };
  yield { type: "start" };
  for await (const event of events) {
    switch (event.type) {
      case "run-start":
        yield { type: "data-run", data: { runId: event.runId, userStep: event.userStep ?? null }, transient: true } as UIMessageChunk;
        break;
      case "model-start":
        yield* closeText();
        yield { type: "start-step" };
        yield { type: "data-step", data: { key: event.stepKey, kind: "model_call" } } as UIMessageChunk;
        break;
      case "attempt":
        yield { type: "message-metadata", messageMetadata: { provider: event.provider, model: event.model } };
        break;
      case "attempt-failed":
        yield {
          type: "data-notice",
          data: { text: `${event.provider} (${event.model}) failed: ${event.error}${event.willRetry ? " — retrying" : " — trying the next provider"}`, tone: "warning" },
        } as UIMessageChunk;
        break;
      case "text-delta":
        if (!textId) {
          textId = `text-${++counter}`;
          yield { type: "text-start", id: textId };
        }
        yield { type: "text-delta", id: textId, delta: event.text };
        break;
      case "text-discard":
        if (textId) {
          const discarded = textId;
          yield* closeText();
          yield { type: "data-discard", data: { textId: discarded } } as UIMessageChunk;
        }
        break;
      case "model-end":
        yield* closeText();
        yield { type: "message-metadata", messageMetadata: { provider: event.provider, model: event.model, usage: event.usage } };
        yield { type: "finish-step" };
        break;
      case "tool-start":
        yield* closeText();
        yield { type: "tool-input-available", toolCallId: event.call.id, toolName: event.call.name, input: event.call.arguments ?? {}, dynamic: true };
        break;
      case "tool-end":
        yield {
          type: "tool-output-available",
          toolCallId: event.callId,
          output: { text: event.output, isError: event.isError, durationMs: event.durationMs, step: event.stepKey, images: imagesOf(event.content) },
          dynamic: true,
        };
        break;
      case "approval-request":
        yield {
          type: "data-approval",
          data: {
            approvalId: event.approvalId,
            toolCallId: event.call.id,
            toolName: event.call.name,
            risk: event.risk,
            preview: event.preview,
            status: "pending",
            reason: null,
            expiresAt: event.expiresAt,
          },
        } as UIMessageChunk;
        break;
      case "notice":
        yield* closeText();
        yield { type: "data-notice", data: { text: event.text, tone: "warning" } } as UIMessageChunk;
        break;
      case "run-end":
        yield* closeText();
        if (event.outcome.status === "failed") yield { type: "error", errorText: event.outcome.error };
        if (event.outcome.status === "aborted") yield { type: "data-notice", data: { text: "Stopped by the user.", tone: "warning" } } as UIMessageChunk;
        if (event.outcome.status === "paused") yield { type: "data-notice", data: { text: "Waiting for your approval.", tone: "info" } } as UIMessageChunk;
        break;
    }
  }
  yield* closeText();
  yield { type: "finish" };
}

export function uiStreamResponse(chunks: AsyncIterable<UIMessageChunk>): Response {
  const iterator = chunks[Symbol.asyncIterator]();
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      // The browser went away: stop following. The run itself goes on (see run-session.ts).
      await iterator.return?.();
    },
  });
  // no-transform: otherwise the server's gzip buffers the stream and tokens arrive in bursts.
  return createUIMessageStreamResponse({ stream, headers: { "cache-control": "no-cache, no-transform" } });
}

/** A reply that is not a model run (slash commands): plain text plus optional data parts. */
export async function* textReply(text: string, data: UIMessageChunk[] = []): AsyncIterable<UIMessageChunk> {
  yield { type: "start" };
  yield { type: "start-step" };
  yield { type: "text-start", id: "reply" };
  yield { type: "text-delta", id: "reply", delta: text };
  yield { type: "text-end", id: "reply" };
  yield* data;
  yield { type: "finish-step" };
  yield { type: "finish" };
}

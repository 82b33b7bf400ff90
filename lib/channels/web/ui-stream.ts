import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "ai";
import { toApprovalView } from "@/lib/approvals/approval-view";
import type { TRunEvent } from "@/lib/runs/run-types";
import type { TChatDataParts, TChatMetadata } from "@/lib/wire/chat";
import { toolOutputView } from "./tool-output-view";

/**
 * Turns run events into the AI SDK UI message stream protocol, which `useChat` consumes: text
 * deltas, tool calls as dynamic tool parts (never raw JSON), one UI step per model call, and our
 * own data parts (lib/wire/chat.ts) for notices, step keys, approvals, progress and discarded text.
 */
export type TChatChunk = UIMessageChunk<TChatMetadata, TChatDataParts>;

function data<Name extends keyof TChatDataParts>(name: Name, value: TChatDataParts[Name], extra: { id?: string; transient?: boolean } = {}): TChatChunk {
  return { type: `data-${name}`, data: value, ...extra } as TChatChunk;
}

/**
 * The run events → UI chunks mapping, one event at a time: `start()` opens the message, `map()`
 * turns each event into its chunks, `end()` closes it. Kept as a mapper, not a generator, so a
 * pushed stream (runStreamResponse) needs no async iterator per event.
 */
export function uiChunkMapper() {
  let textId: string | undefined;
  // useChat refuses (and ends the stream with an error) a tool result whose call it has not seen.
  const announcedCalls = new Set<string>();
  let counter = 0;
  const closeText = (out: TChatChunk[]) => {
    if (textId) out.push({ type: "text-end", id: textId });
    textId = undefined;
  };
  const map = (event: TRunEvent): TChatChunk[] => {
    const out: TChatChunk[] = [];
    switch (event.type) {
      case "run-start":
        out.push(data("run", { runId: event.runId, userStep: event.userStep ?? null }, { transient: true }));
        break;
      case "model-start":
        closeText(out);
        out.push({ type: "start-step" }, data("step", { key: event.stepKey, kind: "model_call" }));
        break;
      case "attempt":
        out.push({ type: "message-metadata", messageMetadata: { provider: event.provider, model: event.model } });
        break;
      case "attempt-failed":
        out.push(data("notice", { text: `${event.provider} (${event.model}) failed: ${event.error}${event.willRetry ? " — retrying" : " — trying the next provider"}`, tone: "warning", kind: "retry" }));
        break;
      case "text-delta":
        if (!textId) {
          textId = `text-${++counter}`;
          out.push({ type: "text-start", id: textId });
        }
        out.push({ type: "text-delta", id: textId, delta: event.text });
        break;
      case "text-discard":
        if (textId) {
          const discarded = textId;
          closeText(out);
          out.push(data("text-discard", { textId: discarded }));
        }
        break;
      case "model-end":
        closeText(out);
        out.push({ type: "message-metadata", messageMetadata: { provider: event.provider, model: event.model, usage: event.usage } }, { type: "finish-step" });
        break;
      case "tool-start":
        closeText(out);
        announcedCalls.add(event.call.id);
        out.push({ type: "tool-input-available", toolCallId: event.call.id, toolName: event.call.name, input: event.call.arguments ?? {}, dynamic: true });
        break;
      case "tool-progress":
        out.push(
          data(
            "progress",
            { toolCallId: event.callId, text: event.progress.text, fraction: event.progress.fraction, ...(event.progress.detail === undefined ? {} : { detail: event.progress.detail }) },
            { id: `progress-${event.callId}` },
          ),
        );
        break;
      case "tool-end":
        if (!announcedCalls.has(event.callId)) break;
        out.push({
          type: "tool-output-available",
          toolCallId: event.callId,
          output: toolOutputView({ content: event.content, isError: event.isError, durationMs: event.durationMs, stepKey: event.stepKey }),
          dynamic: true,
        });
        break;
      case "approval-request":
        out.push(
          data(
            "approval",
            toApprovalView({
              id: event.approvalId,
              toolCallId: event.call.id,
              toolName: event.call.name,
              risk: event.risk,
              preview: event.preview,
              status: "PENDING",
              reason: null,
              expiresAt: new Date(event.expiresAt),
            }),
          ),
        );
        break;
      case "notice":
        closeText(out);
        out.push(data("notice", { text: event.text, tone: event.tone }));
        break;
      case "run-end":
        closeText(out);
        if (event.outcome.status === "failed") out.push({ type: "error", errorText: event.outcome.error });
        if (event.outcome.status === "stopped") out.push(data("notice", { text: event.outcome.reason === "user" ? "Stopped by the user." : `Stopped: ${event.outcome.reason === "timeout" ? "the run reached its time limit" : "the run was ended"}.`, tone: "warning" }));
        // A pause says nothing here: the approval card is the one place that says what is waited for.
        break;
    }
    return out;
  };
  return {
    start: (): TChatChunk[] => [{ type: "start" }],
    map,
    end: (): TChatChunk[] => {
      const out: TChatChunk[] = [];
      closeText(out);
      out.push({ type: "finish" });
      return out;
    },
  };
}

export async function* toUiChunks(events: AsyncIterable<TRunEvent>): AsyncIterable<TChatChunk> {
  const mapper = uiChunkMapper();
  yield* mapper.start();
  for await (const event of events) yield* mapper.map(event);
  yield* mapper.end();
}

const encoder = new TextEncoder();
const sse = (chunk: TChatChunk) => `data: ${JSON.stringify(chunk)}\n\n`;
const DONE = "data: [DONE]\n\n";
// no-transform: otherwise the server's gzip buffers the stream and tokens arrive in bursts.
export const STREAM_HEADERS: Record<string, string> = { ...UI_MESSAGE_STREAM_HEADERS, "cache-control": "no-cache, no-transform" };

/**
 * The AI SDK's UI message stream as server-sent events, written straight as bytes: the same wire
 * format as its createUIMessageStreamResponse (`data: <chunk JSON>` per chunk, `data: [DONE]` at
 * the end, its headers), in one stream instead of three. Each web stream Node builds costs a
 * transferable object and a promise hop per chunk; with 1,000 chats open that was measurable CPU
 * (ARCHITECTURE.md, "Under load"). tests/unit/ui-stream.test.ts compares its bytes and headers with the SDK's.
 */
export function uiStreamResponse(chunks: AsyncIterable<TChatChunk>): Response {
  const iterator = chunks[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.enqueue(encoder.encode(DONE));
        controller.close();
      } else controller.enqueue(encoder.encode(sse(next.value)));
    },
    async cancel() {
      // The browser went away: stop following. The run itself goes on (lib/runs/start-run.ts).
      await iterator.return?.();
    },
  });
  return new Response(stream, { headers: STREAM_HEADERS });
}

/** Where a pushed run's server-sent events go: a web stream's controller, or a Node response. */
export type TSseSink = { write(text: string): void; close(): void };

/**
 * Pushes a run's events to `sink` as the UI message stream's server-sent events (the same bytes as
 * uiStreamResponse(toUiChunks(follow()))): the events of one turn of the event loop in one write,
 * nothing waiting per event. Returns a function that stops watching; the run itself goes on.
 */
export function pushRunEvents(watch: TRunWatch, sink: TSseSink): () => void {
  const mapper = uiChunkMapper();
  sink.write(mapper.start().map(sse).join(""));
  // Called back no earlier than the next microtask (watchLocalRun), so `stop` is set by then.
  const stop: () => void = watch((events, done) => {
    let text = "";
    for (const event of events) for (const chunk of mapper.map(event)) text += sse(chunk);
    if (done) text += mapper.end().map(sse).join("") + DONE;
    try {
      if (text) sink.write(text);
      if (done) sink.close();
    } catch {
      // The response was torn down without cancel() (the connection died mid-write): stop.
      stop();
    }
  });
  return stop;
}

export type TRunWatch = (onEvents: (events: TRunEvent[], done: boolean) => void) => () => void;

/**
 * A run streamed by push (lib/runs/local-runs.ts, watchLocalRun) as a web Response. Leaving (the
 * browser goes away) stops watching; the run goes on.
 */
export function runStreamResponse(watch: TRunWatch): Response {
  let stop: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = pushRunEvents(watch, { write: (text) => controller.enqueue(encoder.encode(text)), close: () => controller.close() });
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(stream, { headers: STREAM_HEADERS });
}

/** A reply that is not a model run (slash commands): plain text plus optional data parts. */
export async function* textReply(text: string, extra: TChatChunk[] = []): AsyncIterable<TChatChunk> {
  yield { type: "start" };
  yield { type: "start-step" };
  yield { type: "text-start", id: "reply" };
  yield { type: "text-delta", id: "reply", delta: text };
  yield { type: "text-end", id: "reply" };
  yield* extra;
  yield { type: "finish-step" };
  yield { type: "finish" };
}

export { data as dataChunk };

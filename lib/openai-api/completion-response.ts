import { createLogger } from "@/lib/observability/logger";
import type { TUsage } from "@/lib/providers/types";
import type { TCompletionEvent, TFinishReason } from "./completion-events";

/**
 * A completion's events on the wire, in the shapes the official `openai` SDK parses: one
 * `chat.completion`, or Server-Sent Events of `chat.completion.chunk`s ending `data: [DONE]`. The
 * session the answer belongs to is in the `X-Xclaw-Session` header (and the body's `xclaw` field)
 * so that the client can continue it.
 */
const log = createLogger("openai-api");

export type TCompletionMeta = { id: string; model: string; sessionId: string; created: number };

export const SESSION_HEADER = "x-xclaw-session";
/** Comment lines keep proxies from closing a stream while a tool runs and nothing is said. */
const KEEPALIVE_MS = 15_000;

function usageOf(usage: TUsage) {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

export async function completionJson(meta: TCompletionMeta, events: AsyncIterable<TCompletionEvent>): Promise<Response> {
  let content = "";
  let finishReason: TFinishReason = "stop";
  let usage: TUsage = { inputTokens: 0, outputTokens: 0 };
  for await (const event of events) {
    if (event.type === "text") content += event.text;
    else if (event.type === "discard") content = content.slice(0, Math.max(0, content.length - event.characters));
    else ({ finishReason, usage } = event);
  }
  return Response.json(
    {
      id: meta.id,
      object: "chat.completion",
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: finishReason, logprobs: null }],
      usage: usageOf(usage),
      xclaw: { session_id: meta.sessionId },
    },
    { headers: { [SESSION_HEADER]: meta.sessionId } },
  );
}

/**
 * Streamed text cannot be taken back: when a provider fails mid-answer and the chain retries, the
 * client keeps the void attempt's words (the non-streaming answer drops them).
 */
export function completionStream(meta: TCompletionMeta, events: AsyncIterable<TCompletionEvent>, options: { includeUsage: boolean }): Response {
  const encoder = new TextEncoder();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    encoder.encode(`data: ${JSON.stringify({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices, ...extra })}\n\n`);
  const iterator = events[Symbol.asyncIterator]();
  let keepalive: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }], { xclaw: { session_id: meta.sessionId } }));
      keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      keepalive.unref?.();
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          clearInterval(keepalive);
          controller.close();
          return;
        }
        const event = next.value;
        if (event.type === "text") controller.enqueue(chunk([{ index: 0, delta: { content: event.text }, finish_reason: null, logprobs: null }]));
        else if (event.type === "end") {
          controller.enqueue(chunk([{ index: 0, delta: {}, finish_reason: event.finishReason, logprobs: null }]));
          if (options.includeUsage) controller.enqueue(chunk([], { usage: usageOf(event.usage) }));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        }
      } catch (error) {
        log.error("a streamed completion failed", { sessionId: meta.sessionId, error });
        // Once the stream has started, an error is an error event (the SDK raises it as an APIError).
        clearInterval(keepalive);
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: { message: "The answer broke off on the server. The run may go on: continue the session to see its end.", type: "server_error", code: "internal" } })}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      clearInterval(keepalive);
      await iterator.return?.(undefined);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", [SESSION_HEADER]: meta.sessionId },
  });
}

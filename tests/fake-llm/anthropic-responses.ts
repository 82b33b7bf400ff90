import type { TResolvedReply } from "./types";

/** Anthropic's documented error types per status. */
function errorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
  };
  return types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export function anthropicErrorBody(status: number, message: string) {
  return { type: "error", error: { type: errorType(status), message } };
}

function stopReason(reply: TResolvedReply): string {
  return reply.stopReason ?? (reply.toolCalls.length > 0 ? "tool_use" : "end_turn");
}

/**
 * Non-streaming tool input must be an object. Broken JSON cannot be an object, so it is passed on
 * as a string: a shape the real API never sends, but the closest a test can get to "the model
 * produced garbage arguments" without a stream.
 */
function parsedInput(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}

export function anthropicMessageBody(reply: TResolvedReply) {
  const content: unknown[] = [];
  if (reply.text !== "") content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls) content.push({ type: "tool_use", id: call.id, name: call.name, input: parsedInput(call.argumentsJson) });
  return {
    id: reply.responseId,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: { ...inputUsage(reply), output_tokens: reply.usage.outputTokens },
  };
}

/** Anthropic counts input read from or written to the prompt cache apart from input_tokens. */
function inputUsage(reply: TResolvedReply) {
  const { inputTokens, cacheReadTokens, cacheCreationTokens } = reply.usage;
  if (cacheReadTokens === undefined && cacheCreationTokens === undefined) return { input_tokens: inputTokens };
  return {
    input_tokens: inputTokens - (cacheReadTokens ?? 0) - (cacheCreationTokens ?? 0),
    cache_read_input_tokens: cacheReadTokens ?? 0,
    cache_creation_input_tokens: cacheCreationTokens ?? 0,
  };
}

/** One `event:`/`data:` pair per element, in the order Anthropic streams a message. */
export function anthropicStreamEvents(reply: TResolvedReply): string[] {
  const events: { type: string; [key: string]: unknown }[] = [
    {
      type: "message_start",
      message: {
        id: reply.responseId,
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The API reports a token or so of output already at the start; message_delta then carries
        // the final total, which a consumer must take as-is rather than add to this.
        usage: { ...inputUsage(reply), output_tokens: Math.min(1, reply.usage.outputTokens) },
      },
    },
    // The real stream sends a ping early on; the SDK skips it, a hand-written parser must too.
    { type: "ping" },
  ];
  let blockIndex = 0;
  if (reply.text !== "") {
    events.push({ type: "content_block_start", index: blockIndex, content_block: { type: "text", text: "" } });
    for (const piece of reply.textPieces) events.push({ type: "content_block_delta", index: blockIndex, delta: { type: "text_delta", text: piece } });
    events.push({ type: "content_block_stop", index: blockIndex });
    blockIndex++;
  }
  for (const call of reply.toolCalls) {
    events.push({ type: "content_block_start", index: blockIndex, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const piece of call.argumentPieces) {
      events.push({ type: "content_block_delta", index: blockIndex, delta: { type: "input_json_delta", partial_json: piece } });
    }
    events.push({ type: "content_block_stop", index: blockIndex });
    blockIndex++;
  }
  events.push({ type: "message_delta", delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage: { output_tokens: reply.usage.outputTokens } });
  events.push({ type: "message_stop" });
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

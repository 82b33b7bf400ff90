import type { TResolvedReply } from "./types";

/** OpenAI's error `type`/`code` per status, as its API reports them. */
function errorKind(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 403) return { type: "invalid_request_error", code: "unsupported_country_region_territory" };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status >= 500) return { type: "server_error", code: null };
  return { type: "invalid_request_error", code: null };
}

export function openAiErrorBody(status: number, message: string) {
  return { error: { message, ...errorKind(status), param: null } };
}

function usageOf(reply: TResolvedReply) {
  return {
    prompt_tokens: reply.usage.inputTokens,
    completion_tokens: reply.usage.outputTokens,
    total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
    ...(reply.usage.cacheReadTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: reply.usage.cacheReadTokens } }),
  };
}

function finishReason(reply: TResolvedReply): string {
  return reply.stopReason ?? (reply.toolCalls.length > 0 ? "tool_calls" : "stop");
}

export function openAiCompletionBody(reply: TResolvedReply) {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.text === "" ? null : reply.text,
    refusal: null,
    annotations: [],
  };
  // The API omits tool_calls entirely (rather than sending []) when the model called no tool.
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.argumentsJson },
    }));
  }
  return {
    id: reply.responseId,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    system_fingerprint: "fp_fake_llm",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageOf(reply),
  };
}

/** One `data:` event per element, in the order and shape OpenAI streams a chat completion. */
export function openAiStreamEvents(reply: TResolvedReply, includeUsage: boolean): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: reply.responseId,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    system_fingerprint: "fp_fake_llm",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    // With include_usage the API puts `usage: null` on every chunk but the last one.
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: reply.text === "" ? null : "", refusal: null }, null)];
  for (const piece of reply.textPieces) chunks.push(chunk({ content: piece }, null));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, null));
    for (const piece of call.argumentPieces) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
  });
  chunks.push(chunk({}, finishReason(reply)));
  if (includeUsage) {
    const { choices: _choices, usage: _usage, ...envelope } = chunk({}, null);
    chunks.push({ ...envelope, choices: [], usage: usageOf(reply) });
  }
  return [...chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`), "data: [DONE]\n\n"];
}

export function openAiModelsBody(created: number) {
  return { object: "list", data: [{ id: "fake-model", object: "model", created, owned_by: "fake-llm" }] };
}

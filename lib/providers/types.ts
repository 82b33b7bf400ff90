import type { TProviderName } from "@/lib/wire/providers";

/**
 * xclaw's own message format, independent of any SDK. Every provider converts to and from it
 * inside its own module, so the agent loop, the database and the UI never see an SDK type.
 */
export type TTextPart = { type: "text"; text: string };
export type TImagePart = { type: "image"; mediaType: string; data: string /* base64 */ };
export type TContentPart = TTextPart | TImagePart;

export type TToolCall = { id: string; name: string; arguments: unknown };

export type TMessage =
  | { role: "user"; content: TContentPart[] }
  | { role: "assistant"; text: string; toolCalls: TToolCall[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: TContentPart[]; isError: boolean };

export type TToolDefinition = { name: string; description: string; inputSchema: Record<string, unknown> };

export type TModelRequest = {
  system: string;
  messages: TMessage[];
  tools: TToolDefinition[];
  maxOutputTokens?: number;
  signal?: AbortSignal;
};

/**
 * Tokens of one model call. Input counts cached input too; the cache figures, when the provider
 * reports them, say how much of it was read from the prompt cache or written to it.
 */
export type TUsage = { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheCreationTokens?: number };

export type TFinishReason = "stop" | "tool-calls" | "length" | "other";

/** What a provider's stream yields, in order: text deltas and tool calls, then usage and finish. */
export type TModelEvent =
  | { type: "text-delta"; text: string }
  | { type: "tool-call"; call: TToolCall }
  | { type: "usage"; usage: TUsage }
  | { type: "finish"; reason: TFinishReason };

// The names are wire types too (the model picker shows them): defined once, in lib/wire.
export type { TProviderName };

export interface TProvider {
  readonly name: TProviderName;
  readonly model: string;
  /** Native tool calling, or tools described in the prompt and parsed from text (lib/agent/text-tool-protocol). */
  readonly toolCalling: "native" | "text";
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  stream(request: TModelRequest): AsyncIterable<TModelEvent>;
}

export function textOf(parts: TContentPart[]): string {
  return parts.filter((part): part is TTextPart => part.type === "text").map((part) => part.text).join("");
}

import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { toolListEncoder } from "./json-body";
import { sdkClientOptions, streamTurn, type TFinishReason, type TTurnReader } from "./request-loop";
import type { TContentPart, TMessage, TModelEvent, TModelRequest, TProvider } from "./types";

/**
 * OpenAI Chat Completions on the official SDK. Any OpenAI-compatible server works (Ollama, vLLM,
 * DeepSeek) through the base URL. The request loop is the one both providers share
 * (request-loop.ts); retries and fallback are the provider chain's.
 */
export type TOpenAiProviderOptions = {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  toolCalling: "native" | "text";
  contextWindowTokens: number;
  maxOutputTokens: number;
};

function toOpenAiContent(parts: TContentPart[]) {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text" as const, text: part.text }
      : { type: "image_url" as const, image_url: { url: `data:${part.mediaType};base64,${part.data}` } },
  );
}

export function toOpenAiMessages(system: string, messages: TMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: "system", content: system }];
  for (const message of messages) {
    if (message.role === "user") {
      out.push({ role: "user", content: toOpenAiContent(message.content) } as ChatCompletionMessageParam);
    } else if (message.role === "assistant") {
      out.push({
        role: "assistant",
        content: message.text || null,
        ...(message.toolCalls.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
              })),
            }
          : {}),
      });
    } else {
      // OpenAI tool messages carry text only; images from a tool follow as a user message.
      const text = message.content.filter((part) => part.type === "text").map((part) => (part.type === "text" ? part.text : "")).join("");
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: (message.isError ? "ERROR: " : "") + (text || "(no text output)") });
      const images = message.content.filter((part) => part.type === "image");
      if (images.length) {
        out.push({ role: "user", content: toOpenAiContent([{ type: "text", text: `Image output of ${message.toolName}:` }, ...images]) } as ChatCompletionMessageParam);
      }
    }
  }
  return out;
}

const encodeTools = toolListEncoder(
  (tool): ChatCompletionTool => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }),
);

/** OpenAI's finish reasons; a reply with tool calls is a tool-call turn whatever it says (some compatible servers say "stop"). */
function finishReason(reason: string | undefined, calledTools: boolean): TFinishReason {
  if (calledTools || reason === "tool_calls") return "tool-calls";
  if (reason === "length") return "length";
  return reason === undefined || reason === "stop" ? "stop" : "other";
}

function readChunk(chunk: ChatCompletionChunk, turn: TTurnReader): void {
  if (chunk.usage) {
    const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
    turn.usage({ inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0, ...(cached ? { cacheReadTokens: cached } : {}) });
  }
  const choice = chunk.choices[0];
  if (!choice) return;
  if (choice.delta?.content) turn.text(choice.delta.content);
  for (const delta of choice.delta?.tool_calls ?? []) {
    turn.toolCallPiece(delta.index, { id: delta.id, name: delta.function?.name, json: delta.function?.arguments });
  }
  turn.stopReason(choice.finish_reason);
}

export class OpenAiProvider implements TProvider {
  readonly name = "openai" as const;
  readonly model: string;
  readonly toolCalling: "native" | "text";
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  private readonly client: OpenAI;

  constructor(options: TOpenAiProviderOptions) {
    this.model = options.model;
    this.toolCalling = options.toolCalling;
    this.contextWindowTokens = options.contextWindowTokens;
    this.maxOutputTokens = options.maxOutputTokens;
    this.client = new OpenAI(sdkClientOptions(options));
  }

  stream(request: TModelRequest): AsyncIterable<TModelEvent> {
    // Typed as the SDK's own parameters, so the fields are still checked; the tools come from the shared list (json-body.ts).
    const params: Omit<ChatCompletionCreateParamsStreaming, "tools"> = {
      model: this.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
    };
    const tools = this.toolCalling === "native" && request.tools.length ? encodeTools(request.tools) : undefined;
    return streamTurn({ client: this.client, path: "/chat/completions", params, tools, signal: request.signal, read: readChunk, finishReason });
  }
}

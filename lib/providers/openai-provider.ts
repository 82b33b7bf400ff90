import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { serverFetch } from "@/lib/net/server-fetch";
import { jsonBody, toolListEncoder } from "./json-body";
import type { TContentPart, TMessage, TModelEvent, TModelRequest, TProvider, TToolCall } from "./types";

/**
 * OpenAI Chat Completions on the official SDK. Any OpenAI-compatible server works (Ollama, vLLM,
 * DeepSeek) through the base URL. The SDK's own retries are off: lib/providers/provider-chain.ts
 * owns retries and fallback so that they follow one policy for every provider.
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

function parseArguments(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    // Returned to the loop as-is; argument validation tells the model what was wrong.
    return text;
  }
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
    // Local servers such as Ollama need no key, but the SDK insists on one.
    this.client = new OpenAI({ apiKey: options.apiKey || "not-needed", baseURL: options.baseUrl, maxRetries: 0, timeout: 10 * 60 * 1000, fetch: serverFetch });
  }

  async *stream(request: TModelRequest): AsyncIterable<TModelEvent> {
    // Typed as the SDK's own parameters, so the fields are still checked; the tools come from the shared list (json-body.ts).
    const params: Omit<ChatCompletionCreateParamsStreaming, "tools"> = {
      model: this.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
    };
    const tools = this.toolCalling === "native" && request.tools.length ? encodeTools(request.tools) : undefined;
    // The SDK's own call (what chat.completions.create does), with a body built from shared parts (json-body.ts).
    const stream = (await this.client.post("/chat/completions", {
      body: jsonBody(params, "tools", tools),
      headers: { "content-type": "application/json" },
      stream: true,
      signal: request.signal,
    })) as unknown as AsyncIterable<ChatCompletionChunk>;
    const pending = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: TModelEvent & { type: "finish" } = { type: "finish", reason: "stop" };
    for await (const chunk of stream) {
      if (chunk.usage) {
        yield { type: "usage", usage: { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 } };
      }
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta?.content) yield { type: "text-delta", text: choice.delta.content };
      for (const delta of choice.delta?.tool_calls ?? []) {
        const entry = pending.get(delta.index) ?? { id: "", name: "", arguments: "" };
        if (delta.id) entry.id = delta.id;
        if (delta.function?.name) entry.name += delta.function.name;
        if (delta.function?.arguments) entry.arguments += delta.function.arguments;
        pending.set(delta.index, entry);
      }
      if (choice.finish_reason) {
        const reason = choice.finish_reason;
        finish = { type: "finish", reason: reason === "tool_calls" ? "tool-calls" : reason === "length" ? "length" : reason === "stop" ? "stop" : "other" };
      }
    }
    const calls: TToolCall[] = [...pending.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, entry]) => ({ id: entry.id || `call_${index}`, name: entry.name, arguments: parseArguments(entry.arguments) }));
    for (const call of calls) yield { type: "tool-call", call };
    if (calls.length) finish = { type: "finish", reason: "tool-calls" };
    yield finish;
  }
}

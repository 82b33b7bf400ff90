import Anthropic from "@anthropic-ai/sdk";
import type { ImageBlockParam, MessageCreateParamsStreaming, MessageParam, RawMessageStreamEvent, TextBlockParam, Tool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { serverFetch } from "@/lib/net/server-fetch";
import { jsonBody, toolListEncoder } from "./json-body";
import type { TContentPart, TMessage, TModelEvent, TModelRequest, TProvider } from "./types";

/**
 * Anthropic Messages on the official SDK: the system prompt is a top-level field, marked for prompt
 * caching because it is the same on every turn; tool calls are `tool_use` blocks and results are
 * `tool_result` blocks inside a user turn. Retries belong to the provider chain, not the SDK.
 */
export type TAnthropicProviderOptions = {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  contextWindowTokens: number;
  maxOutputTokens: number;
};

type TBlock = TextBlockParam | ImageBlockParam;

function toBlocks(parts: TContentPart[]): TBlock[] {
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", source: { type: "base64", media_type: part.mediaType as "image/png", data: part.data } },
  );
}

/** Converts messages, merging consecutive same-role turns: Anthropic requires user/assistant alternation. */
export function toAnthropicMessages(messages: TMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: MessageParam["content"] & unknown[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) (last.content as unknown[]).push(...blocks);
    else out.push({ role, content: [...blocks] as MessageParam["content"] });
  };
  for (const message of messages) {
    if (message.role === "user") {
      push("user", toBlocks(message.content.length ? message.content : [{ type: "text", text: "(empty)" }]));
    } else if (message.role === "assistant") {
      const blocks: unknown[] = [];
      if (message.text) blocks.push({ type: "text", text: message.text });
      for (const call of message.toolCalls) {
        const input = call.arguments && typeof call.arguments === "object" ? call.arguments : { value: call.arguments };
        blocks.push({ type: "tool_use", id: call.id, name: call.name, input });
      }
      if (!blocks.length) blocks.push({ type: "text", text: "(no answer)" });
      push("assistant", blocks as never);
    } else {
      const result: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: toBlocks(message.content.length ? message.content : [{ type: "text", text: "(no output)" }]),
        is_error: message.isError,
      };
      push("user", [result] as never);
    }
  }
  return out;
}

const encodeTools = toolListEncoder((tool): Tool => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool["input_schema"] }));

export class AnthropicProvider implements TProvider {
  readonly name = "anthropic" as const;
  readonly model: string;
  readonly toolCalling = "native" as const;
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  private readonly client: Anthropic;

  constructor(options: TAnthropicProviderOptions) {
    this.model = options.model;
    this.contextWindowTokens = options.contextWindowTokens;
    this.maxOutputTokens = options.maxOutputTokens;
    this.client = new Anthropic({ apiKey: options.apiKey || "not-needed", baseURL: options.baseUrl, maxRetries: 0, timeout: 10 * 60 * 1000, fetch: serverFetch });
  }

  async *stream(request: TModelRequest): AsyncIterable<TModelEvent> {
    // Typed as the SDK's own parameters, so the fields are still checked; the tools come from the shared list (json-body.ts).
    const params: Omit<MessageCreateParamsStreaming, "tools"> = {
      model: this.model,
      max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
      system: [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }],
      messages: toAnthropicMessages(request.messages),
      stream: true,
    };
    // The SDK's own call (what messages.create does), with a body built from shared parts (json-body.ts).
    const stream = (await this.client.post("/v1/messages", {
      body: jsonBody(params, "tools", request.tools.length ? encodeTools(request.tools) : undefined),
      headers: { "content-type": "application/json" },
      stream: true,
      signal: request.signal,
    })) as unknown as AsyncIterable<RawMessageStreamEvent>;
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    for await (const event of stream) {
      switch (event.type) {
        case "message_start":
          inputTokens = (event.message.usage.input_tokens ?? 0) + (event.message.usage.cache_read_input_tokens ?? 0) + (event.message.usage.cache_creation_input_tokens ?? 0);
          outputTokens = event.message.usage.output_tokens ?? 0;
          break;
        case "content_block_start":
          if (event.content_block.type === "tool_use") blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: "" });
          break;
        case "content_block_delta":
          if (event.delta.type === "text_delta") yield { type: "text-delta", text: event.delta.text };
          else if (event.delta.type === "input_json_delta") {
            const block = blocks.get(event.index);
            if (block) block.json += event.delta.partial_json;
          }
          break;
        case "content_block_stop": {
          const block = blocks.get(event.index);
          if (block) {
            let input: unknown = {};
            try {
              input = block.json.trim() ? JSON.parse(block.json) : {};
            } catch {
              input = block.json;
            }
            yield { type: "tool-call", call: { id: block.id, name: block.name, arguments: input } };
          }
          break;
        }
        case "message_delta":
          stopReason = event.delta.stop_reason ?? stopReason;
          if (event.usage?.output_tokens) outputTokens = event.usage.output_tokens;
          break;
        default:
          break;
      }
    }
    yield { type: "usage", usage: { inputTokens, outputTokens } };
    yield {
      type: "finish",
      reason: stopReason === "tool_use" ? "tool-calls" : stopReason === "max_tokens" ? "length" : stopReason === "end_turn" || stopReason === "stop_sequence" ? "stop" : "other",
    };
  }
}

import Anthropic from "@anthropic-ai/sdk";
import type { ImageBlockParam, MessageCreateParamsStreaming, MessageParam, RawMessageStreamEvent, TextBlockParam, Tool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { toolListEncoder } from "./json-body";
import { sdkClientOptions, streamTurn, type TFinishReason, type TTurnReader } from "./request-loop";
import type { TContentPart, TMessage, TModelEvent, TModelRequest, TProvider } from "./types";

/**
 * Anthropic Messages on the official SDK: the system prompt is a top-level field, marked for prompt
 * caching because it is the same on every turn; tool calls are `tool_use` blocks and results are
 * `tool_result` blocks inside a user turn. The request loop is the one both providers share
 * (request-loop.ts); retries belong to the provider chain, not the SDK.
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

/** Anthropic's stop reasons; a stream that never said one ended some other way. */
function finishReason(reason: string | undefined): TFinishReason {
  if (reason === "tool_use") return "tool-calls";
  if (reason === "max_tokens") return "length";
  return reason === "end_turn" || reason === "stop_sequence" ? "stop" : "other";
}

function readEvent(event: RawMessageStreamEvent, turn: TTurnReader): void {
  switch (event.type) {
    case "message_start": {
      const usage = event.message.usage;
      // Cached input is input too: what the prompt cost, whether read from the cache or written to it.
      turn.usage({
        inputTokens: (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
        outputTokens: usage.output_tokens ?? 0,
        // Reported separately too, when the API says (metrics and traces show cache use).
        ...(typeof usage.cache_read_input_tokens === "number" ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
        ...(typeof usage.cache_creation_input_tokens === "number" ? { cacheCreationTokens: usage.cache_creation_input_tokens } : {}),
      });
      break;
    }
    case "content_block_start":
      if (event.content_block.type === "tool_use") turn.toolCallPiece(event.index, { id: event.content_block.id, name: event.content_block.name });
      break;
    case "content_block_delta":
      if (event.delta.type === "text_delta") turn.text(event.delta.text);
      // Only a tool_use block is a call of ours (a server tool's block streams its input the same way).
      else if (event.delta.type === "input_json_delta" && turn.isToolCallOpen(event.index)) turn.toolCallPiece(event.index, { json: event.delta.partial_json });
      break;
    case "content_block_stop":
      turn.toolCallDone(event.index);
      break;
    case "message_delta":
      turn.stopReason(event.delta.stop_reason);
      if (event.usage?.output_tokens) turn.usage({ outputTokens: event.usage.output_tokens });
      break;
    default:
      break;
  }
}

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
    this.client = new Anthropic(sdkClientOptions(options));
  }

  stream(request: TModelRequest): AsyncIterable<TModelEvent> {
    // Typed as the SDK's own parameters, so the fields are still checked; the tools come from the shared list (json-body.ts).
    const params: Omit<MessageCreateParamsStreaming, "tools"> = {
      model: this.model,
      max_tokens: request.maxOutputTokens ?? this.maxOutputTokens,
      system: [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }],
      messages: toAnthropicMessages(request.messages),
      stream: true,
    };
    const tools = request.tools.length ? encodeTools(request.tools) : undefined;
    return streamTurn({ client: this.client, path: "/v1/messages", params, tools, signal: request.signal, read: readEvent, finishReason });
  }
}

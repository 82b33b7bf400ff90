import type { TContentPart, TMessage, TModelEvent, TModelRequest, TProvider, TToolDefinition } from "./types";

/**
 * Tool calling for models without a native tool API: tools are described in the system prompt and
 * calls come back as JSON in the text. Models are sloppy with that JSON, so extraction accepts bare
 * JSON, fenced ```json blocks and objects inline in prose, repairs invalid escapes, raw newlines
 * in strings and trailing commas, and removes the JSON from what the user sees.
 */
export type TExtractedCall = { name: string; arguments: unknown };

export function describeToolsForPrompt(tools: TToolDefinition[]): string {
  const list = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  arguments JSON Schema: ${JSON.stringify(tool.inputSchema)}`).join("\n");
  return [
    "## Tools",
    "You can call these tools:",
    list,
    "",
    "To call tools, reply with only this JSON and nothing else:",
    '{"tool_calls": [{"name": "<tool name>", "arguments": {…}}]}',
    "You will then receive the results and can continue. When you have the final answer, reply in plain text without any tool JSON.",
  ].join("\n");
}

/** Returns the balanced {...} substrings of a text, skipping braces inside JSON strings. */
function balancedObjects(text: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === "{") {
      if (depth === 0) start = index;
      depth++;
    } else if (char === "}" && depth > 0) {
      depth--;
      if (depth === 0) found.push({ start, end: index + 1 });
    }
  }
  return found;
}

/** Fixes the mistakes models make most: bad escapes, raw control characters in strings, trailing commas. */
export function repairJson(text: string): string {
  let out = "";
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (inString) {
      if (char === "\\") {
        const next = text[index + 1];
        if (next !== undefined && '"\\/bfnrtu'.includes(next)) {
          out += char + next;
          index++;
        } else {
          out += "\\\\";
        }
        continue;
      }
      if (char === '"') inString = false;
      if (char === "\n") out += "\\n";
      else if (char === "\r") out += "\\r";
      else if (char === "\t") out += "\\t";
      else out += char;
      continue;
    }
    if (char === '"') inString = true;
    out += char;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(repairJson(text));
  }
}

function callsFromValue(value: unknown): TExtractedCall[] {
  if (!value || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  const list = record.tool_calls ?? record.toolCalls;
  if (Array.isArray(list)) return list.flatMap(callsFromValue);
  const name = record.name ?? record.tool ?? record.tool_name;
  if (typeof name !== "string" || !name) return [];
  let args: unknown = record.arguments ?? record.args ?? record.input ?? record.parameters ?? {};
  if (typeof args === "string") {
    try {
      args = parseLenientJson(args);
    } catch {
      // left as a string: argument validation reports it to the model
    }
  }
  return [{ name, arguments: args }];
}

/** Unknown tool names are kept: the loop answers them with the list of available tools. */
export function extractToolCalls(text: string): { calls: TExtractedCall[]; text: string } {
  const segments: { start: number; end: number; body: string }[] = [];
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/g;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    segments.push({ start: match.index, end: match.index + match[0].length, body: match[1]! });
  }
  const outsideFences = (position: number) => !segments.some((segment) => position >= segment.start && position < segment.end);
  for (const object of balancedObjects(text)) {
    if (outsideFences(object.start)) segments.push({ ...object, body: text.slice(object.start, object.end) });
  }
  const calls: TExtractedCall[] = [];
  const used: { start: number; end: number }[] = [];
  for (const segment of segments.sort((a, b) => a.start - b.start)) {
    let value: unknown;
    try {
      value = parseLenientJson(segment.body.trim());
    } catch {
      continue;
    }
    const found = callsFromValue(value);
    if (!found.length) continue;
    calls.push(...found);
    used.push(segment);
  }
  let remaining = text;
  for (const segment of used.sort((a, b) => b.start - a.start)) remaining = remaining.slice(0, segment.start) + remaining.slice(segment.end);
  return { calls, text: remaining.replace(/\n{3,}/g, "\n\n").trim() };
}

/**
 * Wraps a provider whose model has no native tool calling: tools go into the system prompt,
 * earlier tool calls and results are replayed as text, and the reply is buffered so that tool
 * JSON never streams to the user; only the prose around it is shown.
 */
export function withTextToolProtocol(provider: TProvider): TProvider {
  return {
    name: provider.name,
    model: provider.model,
    toolCalling: "text",
    contextWindowTokens: provider.contextWindowTokens,
    maxOutputTokens: provider.maxOutputTokens,
    async *stream(request: TModelRequest): AsyncIterable<TModelEvent> {
      const system = request.tools.length ? `${request.system}\n\n${describeToolsForPrompt(request.tools)}` : request.system;
      const messages: TMessage[] = request.messages.map((message) => {
        if (message.role === "assistant" && message.toolCalls.length) {
          const json = JSON.stringify({ tool_calls: message.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })) });
          return { role: "assistant", text: [message.text, json].filter(Boolean).join("\n"), toolCalls: [] };
        }
        if (message.role === "tool") {
          const header: TContentPart = { type: "text", text: `Result of tool ${message.toolName}${message.isError ? " (error)" : ""}:\n` };
          return { role: "user", content: [header, ...message.content] };
        }
        return message;
      });
      let text = "";
      let counter = 0;
      for await (const event of provider.stream({ ...request, system, messages, tools: [] })) {
        if (event.type === "text-delta") text += event.text;
        else if (event.type === "finish") {
          const extracted = extractToolCalls(text);
          if (extracted.text) yield { type: "text-delta", text: extracted.text };
          for (const call of extracted.calls) yield { type: "tool-call", call: { id: `text_call_${++counter}`, name: call.name, arguments: call.arguments } };
          yield { type: "finish", reason: extracted.calls.length ? "tool-calls" : event.reason };
        } else if (event.type === "usage") yield event;
      }
    },
  };
}

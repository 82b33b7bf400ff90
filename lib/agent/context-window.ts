import type { TContentPart, TMessage, TProvider, TToolDefinition } from "@/lib/providers/types";

/**
 * Fits a conversation into a provider's context window: the system prompt and the newest turns are
 * kept whole; older turns are summarised by the model (or, if that fails, replaced by a note).
 * A turn starts at a user message, so a tool call is never separated from its result.
 */

// CJK characters are roughly one token each in current tokenizers; other text about four
// characters per token. A plain length/4 would undercount Chinese text four times over.
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;
const IMAGE_TOKENS = 1_000;
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  if (!text) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

function partsTokens(parts: TContentPart[]): number {
  return parts.reduce((sum, part) => sum + (part.type === "text" ? estimateTextTokens(part.text) : IMAGE_TOKENS), 0);
}

export function estimateMessageTokens(message: TMessage): number {
  if (message.role === "assistant") {
    const calls = message.toolCalls.reduce((sum, call) => sum + estimateTextTokens(call.name + JSON.stringify(call.arguments ?? {})), 0);
    return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.text) + calls;
  }
  return MESSAGE_OVERHEAD_TOKENS + partsTokens(message.content);
}

export function splitIntoTurns(messages: TMessage[]): TMessage[][] {
  const turns: TMessage[][] = [];
  for (const message of messages) {
    if (message.role === "user" || turns.length === 0) turns.push([message]);
    else turns[turns.length - 1]!.push(message);
  }
  return turns;
}

export function renderTranscript(messages: TMessage[], maxCharacters: number): string {
  const lines = messages.map((message) => {
    if (message.role === "user") return `User: ${message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("")}`;
    if (message.role === "assistant") {
      const calls = message.toolCalls.map((call) => `[called ${call.name} ${JSON.stringify(call.arguments)}]`).join(" ");
      return `Assistant: ${message.text}${calls ? " " + calls : ""}`;
    }
    return `Tool ${message.toolName}${message.isError ? " (error)" : ""}: ${message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("")}`;
  });
  const text = lines.join("\n");
  // Keep the end: the most recent of the dropped turns matter most for continuity.
  return text.length > maxCharacters ? "…" + text.slice(text.length - maxCharacters) : text;
}

export type TContextResult = { messages: TMessage[]; droppedTurns: number; summarized: boolean; estimatedTokens: number };

export async function fitToContextWindow(options: {
  provider: Pick<TProvider, "contextWindowTokens" | "maxOutputTokens">;
  system: string;
  tools: TToolDefinition[];
  messages: TMessage[];
  summarize?: (transcript: string) => Promise<string>;
}): Promise<TContextResult> {
  const { provider, messages } = options;
  const fixed = estimateTextTokens(options.system) + estimateTextTokens(JSON.stringify(options.tools));
  // 10% headroom: estimates are estimates.
  const budget = Math.floor((provider.contextWindowTokens - provider.maxOutputTokens) * 0.9) - fixed;
  const total = messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
  if (total <= budget) return { messages, droppedTurns: 0, summarized: false, estimatedTokens: total + fixed };

  const turns = splitIntoTurns(messages);
  const summaryReserve = Math.min(2_000, Math.floor(budget * 0.2));
  const kept: TMessage[][] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const cost = turns[index]!.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
    if (kept.length > 0 && used + cost > budget - summaryReserve) break;
    kept.unshift(turns[index]!);
    used += cost;
  }
  const dropped = turns.slice(0, turns.length - kept.length).flat();
  let note = `[${dropped.length} earlier messages were left out to fit the model's context window.]`;
  let summarized = false;
  if (dropped.length && options.summarize) {
    try {
      const transcript = renderTranscript(dropped, Math.max(2_000, (budget - summaryReserve) * 3));
      const summary = (await options.summarize(transcript)).trim();
      if (summary) {
        note = `[Summary of the earlier conversation, which was left out to fit the context window]\n${summary}`;
        summarized = true;
      }
    } catch {
      // The note without a summary still tells the model that history is missing.
    }
  }
  const result: TMessage[] = [{ role: "user", content: [{ type: "text", text: note }] }, ...kept.flat()];
  return {
    messages: result,
    droppedTurns: turns.length - kept.length,
    summarized,
    estimatedTokens: used + fixed + estimateTextTokens(note),
  };
}

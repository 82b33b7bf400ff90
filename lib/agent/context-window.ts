import { tokenCounterFor, type TTokenCounter } from "@/lib/providers/token-count";
import type { TMessage, TProvider, TToolDefinition } from "@/lib/providers/types";

/**
 * Fits a conversation into a provider's context window: the system prompt and the newest turns are
 * kept whole; older turns are summarised by the model (or, if that fails, replaced by a note).
 * A turn starts at a user message, so a tool call is never separated from its result. Tokens are
 * counted with the model's tokenizer, or the calibrated estimate (lib/providers/token-count.ts).
 */

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
  provider: Pick<TProvider, "contextWindowTokens" | "maxOutputTokens"> & { model?: string };
  /** The counter of the model that will most likely answer; the provider's own when absent. */
  counter?: TTokenCounter;
  system: string;
  tools: TToolDefinition[];
  messages: TMessage[];
  summarize?: (transcript: string) => Promise<string>;
}): Promise<TContextResult> {
  const { provider, messages } = options;
  const counter = options.counter ?? (await tokenCounterFor(provider.model ?? ""));
  const fixed = counter.text(options.system) + counter.tools(options.tools);
  // 10% headroom: providers wrap messages and tool schemas in tokens of their own.
  const budget = Math.floor((provider.contextWindowTokens - provider.maxOutputTokens) * 0.9) - fixed;
  const total = counter.messages(messages);
  if (total <= budget) return { messages, droppedTurns: 0, summarized: false, estimatedTokens: total + fixed };

  const turns = splitIntoTurns(messages);
  const summaryReserve = Math.min(2_000, Math.floor(budget * 0.2));
  const kept: TMessage[][] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const cost = counter.messages(turns[index]!);
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
    estimatedTokens: used + fixed + counter.text(note),
  };
}

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { renderTranscript, splitIntoTurns } from "@/lib/agent/context-window";
import type { TContextConfig } from "@/lib/config/context-config";
import { processSingleton } from "@/lib/process-singleton";
import type { TTokenCounter } from "@/lib/providers/token-count";
import type { TMessage } from "@/lib/providers/types";

/**
 * Layer 4b, compression: when offload, masking and edits still leave the context above
 * `startRatio` of the window, the oldest turns are summarised by the model into one message, and
 * the newest turns are kept whole up to `targetRatio`. A summary is reused (the same turns, the
 * same text: a stable prefix for prompt caching, no model call) for `cooldownCalls` model calls of
 * the session before a new one may be made; the turn fitting in lib/agent stays the last resort
 * for a window that is still too small. Kept per session in this process (an LRU); another
 * process or a restart summarises again.
 */
export type TCompressionSettings = TContextConfig["compression"];
export type TCompressionReport = { compressed: boolean; turns: number; summarized: boolean; tokensSaved: number };

type TSummary = { turns: number; fingerprint: string; text: string; callsSince: number };

/**
 * Which turns a summary stands for: after a rollback (and new turns) the first turns may be other
 * turns than the summary describes. The person's and the model's words and the call ids decide;
 * tool results are left out (they are large, and decided by the calls).
 */
function fingerprint(turns: readonly TMessage[][]): string {
  const hash = createHash("sha256");
  for (const message of turns.flat()) {
    if (message.role === "user") hash.update(`u${JSON.stringify(message.content.map((part) => (part.type === "text" ? part.text : part.mediaType)))}`);
    else if (message.role === "assistant") hash.update(`a${message.text}${JSON.stringify(message.toolCalls.map((call) => call.id))}`);
  }
  return hash.digest("base64url");
}
const summaries = processSingleton("context.summaries", () => new LRUCache<string, TSummary>({ max: 2_000, ttl: 6 * 60 * 60_000 }));

const PREFIX = "[Summary of the earlier conversation, compressed to save context; the original turns are stored in the session's steps]";

function summaryMessage(text: string): TMessage {
  return { role: "user", content: [{ type: "text", text: `${PREFIX}\n${text}` }] };
}

export async function compressHistory(
  messages: readonly TMessage[],
  counter: TTokenCounter,
  options: {
    settings: TCompressionSettings;
    sessionId: string;
    windowTokens: number;
    fixedTokens: number;
    summarize?: (transcript: string) => Promise<string>;
  },
): Promise<{ messages: TMessage[]; report: TCompressionReport }> {
  const { settings } = options;
  const none: TCompressionReport = { compressed: false, turns: 0, summarized: false, tokensSaved: 0 };
  const before = counter.messages(messages);
  const state = summaries.get(options.sessionId);
  if (state) state.callsSince += 1;
  if (options.fixedTokens + before <= options.windowTokens * settings.startRatio) return { messages: [...messages], report: none };
  const turns = splitIntoTurns([...messages]);
  const apply = (summary: TSummary, summarized: boolean) => {
    const view = [summaryMessage(summary.text), ...turns.slice(summary.turns).flat()];
    return { messages: view, report: { compressed: true, turns: summary.turns, summarized, tokensSaved: before - counter.messages(view) } };
  };
  // Within the cooldown the last summary stands, as long as the turns it covers are still there.
  if (state && state.callsSince <= settings.cooldownCalls && state.turns < turns.length && state.fingerprint === fingerprint(turns.slice(0, state.turns))) {
    return apply(state, false);
  }
  if (!options.summarize) return { messages: [...messages], report: none };

  // Keep the newest turns whole up to the target (always the last one), summarise the rest.
  const budget = options.windowTokens * settings.targetRatio - options.fixedTokens;
  let kept = 0;
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const cost = counter.messages(turns[index]!);
    if (kept > 0 && used + cost > budget) break;
    kept += 1;
    used += cost;
  }
  const covered = turns.length - kept;
  if (covered < 1) return { messages: [...messages], report: none };
  try {
    const text = (await options.summarize(renderTranscript(turns.slice(0, covered).flat(), settings.maxTranscriptCharacters))).trim();
    if (!text) return { messages: [...messages], report: none };
    const summary: TSummary = { turns: covered, fingerprint: fingerprint(turns.slice(0, covered)), text, callsSince: 0 };
    summaries.set(options.sessionId, summary);
    return apply(summary, true);
  } catch {
    // Masking and the loop's own fitting still keep the call inside the window.
    return { messages: [...messages], report: none };
  }
}

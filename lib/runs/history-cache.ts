import { LRUCache } from "lru-cache";
import { processSingleton } from "@/lib/process-singleton";
import type { TMessage } from "@/lib/providers/types";

/**
 * The conversation as the model saw it when a session's last run completed, kept so the next
 * message does not have to read and decode every step again (one query less on the way to the
 * first token). An entry is used only when the session's newest step before the new message is
 * exactly the last step that run wrote — any other write in between (a command, a rollback, a run
 * in another process) makes the ids differ, and the history is read from the database instead.
 */
const MAX_SESSIONS = 1_000;
const TTL_MS = 15 * 60_000;
/** Long conversations are re-read instead of held: the cache must stay small. */
const MAX_CHARACTERS = 200_000;

type TEntry = { userId: string; lastStepId: string; messages: TMessage[] };

function size(messages: TMessage[]): number {
  let total = 0;
  for (const message of messages) {
    if (message.role === "assistant") total += message.text.length + message.toolCalls.length * 200;
    else for (const part of message.content) total += part.type === "text" ? part.text.length : part.data.length;
    if (total > MAX_CHARACTERS) break;
  }
  // lru-cache wants a positive size, and an empty history is still an entry.
  return Math.max(1, total);
}

// Least recently used out first; a history too long to hold is not stored (and drops the old one).
const entries = processSingleton(
  "runs.history-cache",
  () =>
    new LRUCache<string, TEntry>({
      max: MAX_SESSIONS,
      ttl: TTL_MS,
      maxEntrySize: MAX_CHARACTERS,
      sizeCalculation: (entry) => size(entry.messages),
    }),
);

export function rememberHistory(sessionId: string, entry: TEntry): void {
  entries.set(sessionId, { ...entry, messages: [...entry.messages] });
}

/** The remembered history, if it is still exactly the session's history up to `previousStepId`. */
export function recallHistory(sessionId: string, check: { userId: string; previousStepId: string | null }): TMessage[] | undefined {
  const entry = entries.get(sessionId);
  // Used once: the run that takes it writes new steps, and remembers its own history at its end.
  entries.delete(sessionId);
  if (!entry || entry.userId !== check.userId || entry.lastStepId !== check.previousStepId) return undefined;
  return entry.messages;
}

export function forgetHistory(sessionId: string): void {
  entries.delete(sessionId);
}

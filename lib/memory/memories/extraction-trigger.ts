import { LRUCache } from "lru-cache";
import { sendEvent } from "@/lib/jobs/send-event";
import { createLogger } from "@/lib/observability/logger";

/**
 * Tells the extraction job that a conversation was active. Sent when a run of a web or channel
 * session has ended (lib/memory/memory-capability.ts), never on the way to a first token. The job
 * is a singleton per session in "cancel" mode and waits until the session has been quiet for
 * memory.extraction.quietMinutes, measured from the session's last activity (extraction-job.ts).
 * So one signal per quiet period is enough: this process does not send again for a session it
 * signalled less than quietMinutes ago, because the waiting job sees the newer activity itself.
 *
 * Signals are sent in batches: those noted within SIGNAL_BATCH_MS go out as one sendEvent, one
 * transaction for all of them. A signal is a few statements (the event, the singleton's lock and
 * check, the run, the notify); under load (bench/concurrency: every chat a new session) sent one by
 * one they were most of a chat's database round trips. The event is due a quiet period later, so
 * the batch's short wait changes nothing a person could notice. A process stopped within that wait
 * loses the batch; the session's next run signals again.
 */
const log = createLogger("memory");

export const CONVERSATION_ACTIVE_EVENT = "memory/conversation.active";

const SIGNAL_BATCH_MS = 100;
const SIGNAL_BATCH_MAX = 200;

/** Sessions this process signalled, each remembered for that signal's quiet period. */
const signalled = new LRUCache<string, true>({ max: 10_000 });

type TPendingSignal = { session: { userId: string; sessionId: string }; quietMs: number; notedAt: number };
let pending = new Map<string, TPendingSignal>();
let flushing: { timer: NodeJS.Timeout; done: Promise<void>; resolve: () => void } | undefined;

async function sendBatch(batch: TPendingSignal[]): Promise<void> {
  try {
    // Each due when its conversation could first be quiet: until then no runner touches it.
    await sendEvent(batch.map(({ session, quietMs, notedAt }) => ({ name: CONVERSATION_ACTIVE_EVENT, data: session, ts: new Date(notedAt + quietMs) })));
  } catch (error) {
    // Forgotten, so the session's next run tries again; a failure only costs this extraction.
    for (const { session } of batch) signalled.delete(session.sessionId);
    log.warn("could not schedule memory extraction", { sessions: batch.length, error });
  }
}

function flush(): void {
  const current = flushing;
  flushing = undefined;
  const batch = [...pending.values()];
  pending = new Map();
  clearTimeout(current?.timer);
  void sendBatch(batch).finally(() => current?.resolve());
}

/** Resolves once the signal is sent (with its batch) or skipped; failures are logged, never thrown. */
export function noteConversationActivity(session: { userId: string; sessionId: string }, quietMs: number): Promise<void> {
  // The job is still waiting for a signal sent within the last quietMs (0: every run signals).
  if (quietMs > 0 && signalled.has(session.sessionId)) return Promise.resolve();
  const notedAt = Date.now();
  // Remembered until the job falls due, counted from now like the event's ts.
  if (quietMs > 0) signalled.set(session.sessionId, true, { ttl: quietMs });
  pending.set(session.sessionId, { session, quietMs, notedAt });
  if (!flushing) {
    let resolve!: () => void;
    const done = new Promise<void>((settle) => (resolve = settle));
    flushing = { timer: setTimeout(flush, SIGNAL_BATCH_MS), done, resolve };
  }
  const { done } = flushing;
  if (pending.size >= SIGNAL_BATCH_MAX) flush();
  return done;
}

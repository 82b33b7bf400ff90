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
 */
const log = createLogger("memory");

export const CONVERSATION_ACTIVE_EVENT = "memory/conversation.active";

/** Sessions this process signalled, each remembered for that signal's quiet period. */
const signalled = new LRUCache<string, true>({ max: 10_000 });

/** Resolves once the signal is sent or skipped; a failure only costs this extraction, and is logged. */
export async function noteConversationActivity(session: { userId: string; sessionId: string }, quietMs: number): Promise<void> {
  const now = Date.now();
  // The job is still waiting for a signal sent within the last quietMs (0: every run signals).
  if (quietMs > 0 && signalled.has(session.sessionId)) return;
  try {
    // Due when the conversation could first be quiet: until then no runner touches it.
    await sendEvent({ name: CONVERSATION_ACTIVE_EVENT, data: session, ts: new Date(now + quietMs) });
    // Remembered until the job falls due, counted from before the send like the event's ts.
    if (quietMs > 0) signalled.set(session.sessionId, true, { ttl: Math.max(1, now + quietMs - Date.now()) });
  } catch (error) {
    log.warn("could not schedule memory extraction", { sessionId: session.sessionId, error });
  }
}

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

const MAX_REMEMBERED = 10_000;
const signalledAt = new Map<string, number>();

/** True when this process told a job about the session within the last quietMs (the job is still waiting). */
function recentlySignalled(sessionId: string, quietMs: number, now: number): boolean {
  const at = signalledAt.get(sessionId);
  return at !== undefined && now - at < quietMs;
}

function remember(sessionId: string, now: number, quietMs: number) {
  if (signalledAt.size >= MAX_REMEMBERED) {
    for (const [id, at] of signalledAt) if (now - at >= quietMs) signalledAt.delete(id);
    for (const id of signalledAt.keys()) {
      if (signalledAt.size < MAX_REMEMBERED) break;
      signalledAt.delete(id);
    }
  }
  signalledAt.delete(sessionId);
  signalledAt.set(sessionId, now);
}

/** Resolves once the signal is sent or skipped; a failure only costs this extraction, and is logged. */
export async function noteConversationActivity(session: { userId: string; sessionId: string }, quietMs: number): Promise<void> {
  const now = Date.now();
  if (quietMs > 0 && recentlySignalled(session.sessionId, quietMs, now)) return;
  try {
    // Due when the conversation could first be quiet: until then no runner touches it.
    await sendEvent({ name: CONVERSATION_ACTIVE_EVENT, data: session, ts: new Date(now + quietMs) });
    remember(session.sessionId, now, quietMs);
  } catch (error) {
    log.warn("could not schedule memory extraction", { sessionId: session.sessionId, error });
  }
}

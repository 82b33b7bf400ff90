import { sendEvent } from "@/lib/jobs/send-event";
import { createLogger } from "@/lib/observability/logger";

/**
 * Tells the extraction job that a conversation is active. The job is a singleton per session in
 * "cancel" mode: each new run of the session cancels the waiting extraction and starts a new wait,
 * so extraction happens once, after the conversation has been quiet for memory.extraction.quietMinutes.
 */
const log = createLogger("memory");

export const CONVERSATION_ACTIVE_EVENT = "memory/conversation.active";

/** Fire and forget: the turn never waits for it, and a failure only costs this extraction. */
export function noteConversationActivity(session: { userId: string; sessionId: string }): void {
  sendEvent({ name: CONVERSATION_ACTIVE_EVENT, data: session }).catch((error: unknown) => {
    log.warn("could not schedule memory extraction", { sessionId: session.sessionId, error });
  });
}

import { z } from "zod";
import type { TSendEventInput } from "@/lib/jobs/define-job";

/**
 * The channels' job events: an inbound message to handle, and a run of a channel session that
 * ended (the web decided an approval, so the rest of the answer may go back to the chat).
 */
export const MESSAGE_EVENT = "channels/message.received";
export const RUN_ENDED_EVENT = "channels/run.ended";

export const ZMessageEvent = z.object({ eventId: z.uuid() });
export const ZRunEndedEvent = z.object({ sessionId: z.uuid(), userId: z.uuid() });

export function channelMessageEvent(eventId: string): TSendEventInput {
  // The id makes the send idempotent: a repeated send queues one run.
  return { name: MESSAGE_EVENT, data: { eventId }, id: `channel-message:${eventId}` };
}

import type { TToolProvider } from "@/lib/capabilities/tool-provider";
import { sendEvent } from "@/lib/jobs/send-event";
import { RUN_ENDED_EVENT } from "./channel-events";
import { waitingConversationOf } from "./conversations";

/**
 * The channels' part in every run: no tools, and one run-end hook. When a run of a session that a
 * chat waits on ends (the owner decided its approval on the web), the rest of the answer is sent to
 * the chat by `channels.continue`. Other sessions cost nothing: the trigger is checked first.
 */
export const channelsCapability: TToolProvider = {
  id: "channels",
  tools: () => [],
  runEnded: async (context) => {
    if (context.sessionTrigger !== "CHANNEL") return;
    if (!(await waitingConversationOf(context.sessionId))) return;
    await sendEvent({ name: RUN_ENDED_EVENT, data: { sessionId: context.sessionId, userId: context.userId } });
  },
};

import { db } from "@/lib/db/client";
import { isRunAlive, markInterruptedIfStale } from "@/lib/runs/run-lease";
import { getSessionOrThrow, toSessionSummary } from "@/lib/sessions/sessions";
import { listSteps } from "@/lib/sessions/steps";
import type { TSessionView } from "@/lib/wire/chat";
import { buildUiMessages } from "./ui-messages";

/** A session as the chat page and GET /api/sessions/:id show it: summary, state and messages. */
export async function getSessionView(options: { userId: string; sessionId: string }): Promise<TSessionView> {
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  const [steps, approvals] = await Promise.all([
    listSteps({ sessionId: session.id, userId: options.userId }),
    db().approval.findMany({ where: { sessionId: session.id, userId: options.userId } }),
  ]);
  return {
    session: { ...toSessionSummary(session), live: isRunAlive(session), interrupted: session.status === "FAILED" && session.statusReason === "interrupted" },
    messages: buildUiMessages(steps, approvals),
  };
}

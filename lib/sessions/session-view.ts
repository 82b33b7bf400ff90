import { db } from "@/lib/db/client";
import { buildUiMessages, type TUiMessage } from "./history";
import { isRunActive, markInterruptedIfStale } from "./run-session";
import { getSessionOrThrow, toSessionSummary, type TSessionSummary } from "./sessions";
import { listSteps } from "./steps";

export type TSessionView = { session: TSessionSummary & { live: boolean; interrupted: boolean }; messages: TUiMessage[] };

/** A session as the chat page and GET /api/sessions/:id show it: summary, state and messages. */
export async function getSessionView(options: { userId: string; sessionId: string }): Promise<TSessionView> {
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  const [steps, approvals] = await Promise.all([
    listSteps({ sessionId: session.id, userId: options.userId }),
    db().approval.findMany({ where: { sessionId: session.id, userId: options.userId } }),
  ]);
  return {
    session: { ...toSessionSummary(session), live: isRunActive(session.id), interrupted: session.status === "FAILED" && session.statusReason === "interrupted" },
    messages: buildUiMessages(steps, approvals),
  };
}

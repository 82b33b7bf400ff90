import { db } from "@/lib/db/client";
import type { TStepRow } from "@/lib/wire/chat";
import { listSteps, toStepRow } from "./steps";

type TChildSession = NonNullable<TStepRow["childSessions"]>[number];

/** The worker sessions under each step of a session (delegate, debate, pipeline): step id → workers. */
async function childSessionsByStep(userId: string, sessionId: string): Promise<Map<string, TChildSession[]>> {
  const rows = await db().agentTask.findMany({
    where: { userId, parentSessionId: sessionId, sessionId: { not: null } },
    orderBy: [{ parentStepId: "asc" }, { index: "asc" }],
    select: { parentStepId: true, sessionId: true, agent: true, status: true },
  });
  const byStep = new Map<string, TChildSession[]>();
  for (const row of rows) {
    const list = byStep.get(row.parentStepId) ?? [];
    list.push({ sessionId: row.sessionId!, agent: row.agent, status: row.status.toLowerCase() });
    byStep.set(row.parentStepId, list);
  }
  return byStep;
}

/**
 * A session's steps as the Steps panel, `/steps` and GET /api/sessions/:id/steps show them: a
 * step that started workers points at their sessions, so the trace reads as one tree across
 * sub-agents. The caller has checked that the session is the user's.
 */
export async function listStepRows(options: { userId: string; sessionId: string }): Promise<TStepRow[]> {
  const [steps, children] = await Promise.all([listSteps(options), childSessionsByStep(options.userId, options.sessionId)]);
  return steps.map((step) => {
    const childSessions = children.get(step.id);
    return childSessions ? { ...toStepRow(step), childSessionId: childSessions[0]!.sessionId, childSessions } : toStepRow(step);
  });
}

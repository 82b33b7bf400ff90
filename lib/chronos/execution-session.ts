import { db } from "@/lib/db/client";
import type { ChronosExecution } from "@/lib/db/generated/client";
import { createLogger } from "@/lib/observability/logger";
import { createSession } from "@/lib/sessions/sessions";
import { attachSession } from "./executions";

/**
 * Every execution that runs is a session (trigger "job" or "webhook") holding its full trace. The
 * session is made once per execution: two attempts racing to make it keep the first and drop the
 * other. It always allows notify (the job's purpose); every other call goes through the approval
 * policy, and in these unattended runs a call that would ask is denied.
 */
const log = createLogger("chronos");

function sessionTitle(execution: ChronosExecution, name: string): string {
  return execution.trigger === "WEBHOOK" ? `Alert: ${name}` : `Job: ${name}`;
}

export async function ensureExecutionSession(execution: ChronosExecution, name: string): Promise<string> {
  if (execution.sessionId) return execution.sessionId;
  const session = await createSession({ userId: execution.userId, title: sessionTitle(execution, name), trigger: execution.trigger === "WEBHOOK" ? "webhook" : "job" });
  await db().chatSession.update({ where: { id: session.id }, data: { allowedTools: ["notify"] } });
  if (await attachSession(execution.id, session.id)) return session.id;
  // Another attempt attached its session first: keep that one.
  await db().chatSession.delete({ where: { id: session.id } }).catch((error: unknown) => log.warn("could not drop a spare execution session", { sessionId: session.id, error }));
  const winner = await db().chronosExecution.findUniqueOrThrow({ where: { id: execution.id } });
  return winner.sessionId!;
}

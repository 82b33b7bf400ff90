import { z } from "zod";
import { db } from "@/lib/db/client";
import { sendEvent } from "@/lib/jobs/send-event";
import type { AgentTask } from "@/lib/db/generated/client";

/**
 * The event that starts one worker's job (lib/agents/worker-job.ts). Its id is derived from
 * (parent session, delegate step, worker index): sending it again — a retry, agent_results after a
 * restart — is a no-op for 24 hours, so a worker is never started twice.
 */
export const WORKER_EVENT = "agents/worker.run";

export const ZWorkerEvent = z.object({
  taskId: z.uuid(),
  userId: z.uuid(),
  /** The call the worker belongs to (its delegate step). */
  groupKey: z.string().min(1).max(100),
  /** How many parents the worker has, and whether its calls needing approval ask the owner (inherited). */
  depth: z.int().min(1).max(10),
  approvals: z.enum(["ask", "deny"]),
});
export type TWorkerEvent = z.infer<typeof ZWorkerEvent>;

export function workerEventId(task: Pick<AgentTask, "parentSessionId" | "parentStepId" | "index">): string {
  return `agents:${task.parentSessionId}:${task.parentStepId}:${task.index}`;
}

/** Sends the workers' events, then notes when (a repeat after a crash in between is a no-op). */
export async function dispatchWorkers(tasks: readonly AgentTask[], parent: { depth?: number; approvals?: "ask" | "deny" }): Promise<void> {
  if (!tasks.length) return;
  const data = (task: AgentTask): TWorkerEvent => ({ taskId: task.id, userId: task.userId, groupKey: task.parentStepId, depth: (parent.depth ?? 0) + 1, approvals: parent.approvals ?? "ask" });
  await sendEvent(tasks.map((task) => ({ name: WORKER_EVENT, id: workerEventId(task), data: data(task) })));
  await db().agentTask.updateMany({ where: { id: { in: tasks.map((task) => task.id) }, dispatchedAt: null }, data: { dispatchedAt: new Date() } });
}

import { randomUUID } from "node:crypto";
import { RunStopped } from "@/lib/agent/stop-reasons";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChatSession } from "@/lib/db/generated/client";
import { processSingleton } from "@/lib/process-singleton";
import { recordStep } from "@/lib/sessions/steps";
import { allLocalRuns, localRunOf } from "./local-runs";

/**
 * Who runs a session, and whether they are still alive. The owning process renews a lease on the
 * session row every heartbeat; a RUNNING session whose lease has expired (or that this process
 * owned before a restart) was interrupted: any process may mark it so, and it can be resumed.
 * The heartbeat statement also reads the session's stop flag, so Stop from another process works
 * even when its notification was lost.
 */

/**
 * Identifies this process in `runnerId`: a different value after a restart. One per process, not
 * per module: Next.js loads instrumentation (the job runner, which starts multi-agent workers) and
 * the route handlers as separate module graphs that share the run registry (local-runs.ts), so each
 * graph's heartbeat renews every run of the process and none takes another's runs for lost ones.
 */
export const RUNNER_ID = processSingleton("runs.runner-id", () => randomUUID());

export function leaseMs(): number {
  return getBehaviourConfig().runs.leaseSeconds * 1000;
}

export function leaseUntil(): Date {
  return new Date(Date.now() + leaseMs());
}

/**
 * One heartbeat per process, not per run: a single statement renews the lease of every session
 * this process runs and returns their stop flags. A run missing from the answer has lost its
 * lease (another process marked it interrupted and may have resumed it) and is stopped.
 */
const heartbeat = processSingleton("runs.heartbeat", (): { timer?: NodeJS.Timeout } => ({}));

async function beat(): Promise<void> {
  const runs = allLocalRuns().filter((run) => !run.finishing);
  if (!runs.length) {
    clearInterval(heartbeat.timer);
    heartbeat.timer = undefined;
    return;
  }
  const rows = await db().$queryRaw<{ runId: string | null; stopRequestedAt: Date | null }[]>`
    UPDATE "chat_sessions" SET "leaseExpiresAt" = ${leaseUntil()}
    WHERE "runnerId" = ${RUNNER_ID} AND "status" = 'RUNNING'
    RETURNING "runId", "stopRequestedAt"`;
  const byRun = new Map(rows.map((row) => [row.runId, row]));
  for (const run of runs) {
    const row = byRun.get(run.id);
    if (!row) {
      if (!run.finishing) run.controller.abort(new RunStopped("leaseLost"));
    } else if (row.stopRequestedAt) run.controller.abort(new RunStopped("user"));
  }
}

/** Makes sure the process's heartbeat runs while it has runs; it stops itself when none are left. */
export function ensureHeartbeat(): void {
  if (heartbeat.timer) return;
  const timer = setInterval(() => {
    // A missed beat is harmless: the lease outlasts several of them.
    beat().catch(() => {});
  }, getBehaviourConfig().runs.heartbeatSeconds * 1000);
  timer.unref?.();
  heartbeat.timer = timer;
}

export function isLeaseFresh(session: Pick<ChatSession, "leaseExpiresAt" | "runnerId">): boolean {
  return session.runnerId !== RUNNER_ID && !!session.leaseExpiresAt && session.leaseExpiresAt.getTime() >= Date.now();
}

/** Whether a RUNNING session's run is alive here or in another process. */
export function isRunAlive(session: Pick<ChatSession, "id" | "status" | "leaseExpiresAt" | "runnerId">): boolean {
  if (session.status !== "RUNNING") return false;
  return !!localRunOf(session.id) || isLeaseFresh(session);
}

/** The status reason of a session whose run was interrupted and may be resumed. */
export const INTERRUPTED = "interrupted";

/** The error of a step that was running when its process went away (the note after it explains it). */
export const INTERRUPTED_STEP_ERROR = "interrupted: the server stopped while this step ran";

/**
 * A session left RUNNING by a process that is gone is marked interrupted: its running steps fail
 * with a note, the session is FAILED with reason "interrupted" and can be resumed. Returns the
 * session as it is now.
 */
export async function markInterruptedIfStale(session: ChatSession): Promise<ChatSession> {
  if (session.status !== "RUNNING" || isRunAlive(session)) return session;
  const updated = await db().chatSession.updateMany({
    where: { id: session.id, status: "RUNNING", runnerId: session.runnerId, runId: session.runId },
    data: { status: "FAILED", statusReason: INTERRUPTED, runnerId: null, leaseExpiresAt: null, stopRequestedAt: null },
  });
  if (updated.count === 0) return db().chatSession.findUniqueOrThrow({ where: { id: session.id } });
  await db().step.updateMany({
    where: { sessionId: session.id, status: "RUNNING" },
    data: { status: "FAILED", error: INTERRUPTED_STEP_ERROR, endedAt: new Date() },
  });
  await recordStep({
    sessionId: session.id,
    userId: session.userId,
    type: "SYSTEM_NOTE",
    name: "interrupted",
    status: "COMPLETED",
    input: { text: "This run was interrupted (the server stopped). Press Resume to continue; interrupted tool calls will not be re-run.", tone: "warning" },
  });
  return db().chatSession.findUniqueOrThrow({ where: { id: session.id } });
}

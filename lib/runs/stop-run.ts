import { RunStopped } from "@/lib/agent/stop-reasons";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import { runEventBus } from "./event-bus";
import { localRunOf } from "./local-runs";
import { isRunAlive, markInterruptedIfStale } from "./run-lease";

/**
 * Stop from any process. Here: abort the run. Elsewhere: set the session's stop flag (read by the
 * owner's next heartbeat) and notify the owner through the event bus (immediate), then wait until
 * the run has ended. Returns whether a live run was stopped.
 */
const POLL_MS = 100;

export async function stopSessionRun(options: { userId: string; sessionId: string }): Promise<boolean> {
  const session = await getSessionOrThrow(options);
  const local = localRunOf(session.id);
  if (local) {
    local.controller.abort(new RunStopped("user"));
    await Promise.race([local.finished, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    return true;
  }
  if (session.status !== "RUNNING" || !session.runId) return false;
  if (!isRunAlive(session)) {
    await markInterruptedIfStale(session);
    return false;
  }
  const runId = session.runId;
  await db().chatSession.updateMany({ where: { id: session.id, runId, status: "RUNNING" }, data: { stopRequestedAt: new Date() } });
  await runEventBus().requestStop(runId);
  const deadline = Date.now() + getBehaviourConfig().runs.heartbeatSeconds * 2_000 + 2_000;
  while (Date.now() < deadline) {
    const current = await db().chatSession.findUnique({ where: { id: session.id }, select: { status: true, runId: true } });
    if (!current || current.status !== "RUNNING" || current.runId !== runId) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // The owner neither stopped nor renewed its lease: it is gone, and the run with it.
  const current = await db().chatSession.findUnique({ where: { id: session.id } });
  if (current && !isRunAlive(current)) await markInterruptedIfStale(current);
  return false;
}

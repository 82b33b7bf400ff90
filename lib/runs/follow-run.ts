import { db } from "@/lib/db/client";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import { runEventBus } from "./event-bus";
import { followLocalRun, localRunOf } from "./local-runs";
import { isLeaseFresh, isRunAlive, markInterruptedIfStale } from "./run-lease";
import type { TRunEvent } from "./run-types";

/**
 * Follows the live run of a session from its first event, wherever it runs: from memory when this
 * process runs it, through the event bus when another process does. Undefined when nothing runs
 * (a run whose process died is marked interrupted on the way).
 */
export async function followSessionRun(options: { userId: string; sessionId: string; signal?: AbortSignal }): Promise<AsyncIterable<TRunEvent> | undefined> {
  const local = localRunOf(options.sessionId);
  // The common case needs no query: this process runs it, and the run knows its owner.
  if (local && local.userId === options.userId) return followLocalRun(local, options.signal);
  const session = await getSessionOrThrow(options);
  if (session.status !== "RUNNING" || !session.runId) return undefined;
  if (!isRunAlive(session)) {
    await markInterruptedIfStale(session);
    return undefined;
  }
  const runId = session.runId;
  return runEventBus().followRemote({
    runId,
    sessionId: session.id,
    signal: options.signal,
    isAlive: async () => {
      const current = await db().chatSession.findUnique({ where: { id: session.id }, select: { status: true, runId: true, runnerId: true, leaseExpiresAt: true } });
      return !!current && current.status === "RUNNING" && current.runId === runId && isLeaseFresh(current);
    },
  });
}

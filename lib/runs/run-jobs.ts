import { z } from "zod";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { createLogger } from "@/lib/observability/logger";
import { INTERRUPTED, markInterruptedIfStale } from "./run-lease";
import { resumeSession } from "./resume-session";

/**
 * The run core's housekeeping, as jobs on the jobs layer (any process may run them):
 * - approvals that nobody decided in time expire: the waiting call is answered "not run", the
 *   session is free again (a new message continues it), and the card says "expired";
 * - the event batches of runs that ended are deleted, and sessions whose process died without
 *   anyone looking at them are marked interrupted;
 * - a run handed over by a process that shut down (drain.ts) is resumed in this one.
 */
const log = createLogger("run");
const EXPIRED_OBSERVATION = "Not run: the approval expired before anyone decided. Do not retry this call unless the user asks again.";

export async function expirePendingApprovals(options: { now?: Date } = {}): Promise<number> {
  const now = options.now ?? new Date();
  const output = JSON.stringify({ content: [{ type: "text", text: EXPIRED_OBSERVATION }], isError: true });
  const rows = await db().$queryRaw<{ count: number }[]>`
    WITH expired AS (
      UPDATE "approvals" SET "status" = 'EXPIRED', "reason" = 'the approval expired before anyone decided', "decidedAt" = ${now}, "updatedAt" = ${now}
      WHERE "status" = 'PENDING' AND "expiresAt" < ${now}
      RETURNING "id", "sessionId", "stepId"
    ), closed AS (
      UPDATE "steps" SET "status" = 'FAILED', "error" = 'the approval expired', "output" = ${output}::jsonb, "endedAt" = ${now}
      WHERE "id" IN (SELECT "stepId" FROM expired) AND "status" = 'RUNNING'
      RETURNING "id"
    ), released AS (
      UPDATE "chat_sessions" SET "status" = 'SUCCESS', "statusReason" = 'the approval expired', "updatedAt" = ${now}
      WHERE "id" IN (SELECT "sessionId" FROM expired) AND "status" = 'PAUSED'
      RETURNING "id"
    )
    SELECT count(*)::int AS count FROM expired`;
  return rows[0]?.count ?? 0;
}

/** How long the batches of an ended run are kept for followers still reading its tail. */
const KEEP_BATCHES_MS = 10 * 60_000;

export async function cleanFinishedRunState(options: { now?: Date } = {}): Promise<{ batches: number; interrupted: number }> {
  const now = options.now ?? new Date();
  const batches = await db().$executeRaw`
    DELETE FROM "run_event_batches" b
    WHERE b."createdAt" < ${new Date(now.getTime() - KEEP_BATCHES_MS)}
      AND NOT EXISTS (SELECT 1 FROM "chat_sessions" s WHERE s."runId" = b."runId" AND s."status" = 'RUNNING')`;
  const stale = await db().chatSession.findMany({ where: { status: "RUNNING", leaseExpiresAt: { lt: now } }, take: 200 });
  let interrupted = 0;
  for (const session of stale) if ((await markInterruptedIfStale(session)).status !== "RUNNING") interrupted++;
  return { batches, interrupted };
}

export const expireApprovalsJob = defineJob(
  { id: "approvals.expire", trigger: { cron: "* * * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => ({ expired: await step.run("expire", () => expirePendingApprovals()) }),
);

export const cleanRunStateJob = defineJob(
  { id: "runs.clean", trigger: { cron: "*/5 * * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => step.run("clean", () => cleanFinishedRunState()),
);

/** A run a shutting-down process handed over (drain.ts): resumed by whichever process takes the job. */
export const RESUME_HANDED_OVER_EVENT = "runs/resume.requested";
export const ZResumeHandedOver = z.object({ sessionId: z.uuid(), userId: z.uuid() });

export const resumeHandedOverJob = defineJob(
  { id: "runs.resume-handed-over", trigger: { event: RESUME_HANDED_OVER_EVENT }, schema: ZResumeHandedOver, retries: 5 },
  async ({ event, step }) =>
    step.run("resume", async () => {
      const { sessionId, userId } = event.data;
      const session = await db().chatSession.findFirst({ where: { id: sessionId, userId }, include: { user: { select: { instructions: true } } } });
      // Someone pressed Resume or sent a message meanwhile: nothing is left to hand over.
      if (!session || session.status !== "FAILED" || session.statusReason !== INTERRUPTED) return { resumed: false };
      const result = await resumeSession({ userId, sessionId, instructions: session.user.instructions });
      if (result.kind === "run") log.info("resumed a run handed over by a process that shut down", { sessionId });
      return { resumed: result.kind === "run" };
    }),
);

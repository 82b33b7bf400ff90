import { AppError } from "@/lib/errors";
import { sendEvent } from "@/lib/jobs/send-event";
import { requireProviders } from "@/lib/runs/require-providers";
import { EXECUTION_EVENT, executionEventId } from "./events";
import { beginJobExecution, finishExecution } from "./executions";
import { getJobOrThrow } from "./jobs-store";
import { ensureExecutionSession } from "./execution-session";

/**
 * "Run now" (POST /api/jobs/:id/run, the cron_manage tool): an execution with no slot, its session
 * made at once (so the caller can open the trace), the run queued on the jobs layer. A job that is
 * already running is refused (409), not queued behind itself.
 */
export async function runJobNow(options: { userId: string; jobId: string }): Promise<{ executionId: string; sessionId: string }> {
  const job = await getJobOrThrow(options);
  if (job.pausedByAdmin) throw new AppError("conflict", `"${job.name}" was paused by an administrator; it cannot run until they resume it.`);
  requireProviders();
  const begun = await beginJobExecution({ job, trigger: "MANUAL", scheduledFor: null, onBusy: "refuse" });
  if (begun.outcome !== "queued") {
    throw new AppError("conflict", `"${job.name}" is already running. Wait for that run to finish, then try again.`);
  }
  const { execution } = begun;
  try {
    const sessionId = await ensureExecutionSession(execution, job.name);
    await sendEvent({ name: EXECUTION_EVENT, data: { executionId: execution.id, userId: job.userId }, id: executionEventId(execution.id) });
    return { executionId: execution.id, sessionId };
  } catch (error) {
    await finishExecution({ executionId: execution.id, status: "FAILED", reason: error instanceof AppError ? error.message : "The run could not be queued." });
    throw error;
  }
}

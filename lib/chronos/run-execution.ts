import { RetryAfterError } from "@/lib/jobs/job-errors";
import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { RunStopped, type TStopReason } from "@/lib/agent/stop-reasons";
import { runTools } from "@/lib/capabilities/installed-capabilities";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChatSession, ChronosExecution, ChronosExecutionStatus } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { isRunAlive, markInterruptedIfStale } from "@/lib/runs/run-lease";
import { startRun } from "@/lib/runs/start-run";
import { waitForRun } from "@/lib/runs/local-runs";
import { finishExecution, holdsJob, markRunning } from "./executions";
import { NOTIFY_TOOL } from "./jobs-store";
import { chronosModeInstructions, jobTaskPrompt, STEP_LIMIT_NOTICE, triagePrompt } from "./prompts";
import { ensureExecutionSession } from "./execution-session";

/**
 * Runs one execution: CHRONOS MODE (the chronos system prompt, the job's tools, a hard step limit,
 * approvals denied instead of asked, the job's time limit) in the execution's own session, waits
 * for the run, and records SILENT (finished without notify), NOTIFIED, FAILED or TIMEOUT.
 *
 * Never twice: a run is started only while its session has never run. When this is called again
 * for an execution whose run had already started (the process died, the job was retried), the run
 * is not started again — a completed side effect must never repeat. If the run still lives in
 * another process this waits for it; otherwise it is recorded as interrupted (FAILED), and its
 * trace shows how far it got.
 */
const log = createLogger("chronos");

export const INTERRUPTED_REASON = "Interrupted: the server stopped during the run. It was not started again, so nothing it did is repeated; open the trace to see how far it got.";

export type TExecutionResult = { executionId: string; status: Lowercase<ChronosExecutionStatus>; sessionId: string | null };

type TFinal = { status: Exclude<ChronosExecutionStatus, "QUEUED" | "RUNNING">; reason: string | null };

function firstLine(text: string): string | null {
  const line = text.trim().split("\n").find((entry) => entry.trim());
  return line ? line.trim().slice(0, 300) : null;
}

/** How the run's outcome reads in the job's history. */
export function classifyOutcome(outcome: TAgentOutcome, notified: boolean, timeoutSeconds: number): TFinal {
  switch (outcome.status) {
    case "completed":
      return { status: notified ? "NOTIFIED" : "SILENT", reason: firstLine(outcome.text) };
    case "max-iterations":
      return notified ? { status: "NOTIFIED", reason: STEP_LIMIT_NOTICE } : { status: "FAILED", reason: STEP_LIMIT_NOTICE };
    case "stopped":
      if (outcome.reason === "timeout") return { status: "TIMEOUT", reason: `Stopped at the time limit (${timeoutSeconds} s).` };
      if (outcome.reason === "user") return { status: notified ? "NOTIFIED" : "FAILED", reason: "Stopped by a person." };
      return { status: "FAILED", reason: INTERRUPTED_REASON };
    case "paused":
      return { status: "FAILED", reason: "The run waited for an approval, which unattended runs cannot get." };
    case "failed":
      return { status: notified ? "NOTIFIED" : "FAILED", reason: outcome.error.slice(0, 1_000) };
  }
}

/** The outcome of a run that started earlier, read from its session (waiting while it still runs elsewhere). */
async function outcomeOfEarlierRun(sessionId: string, deadline: number): Promise<TAgentOutcome> {
  let session: ChatSession = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
  while (session.status === "RUNNING" && isRunAlive(session) && Date.now() < deadline) {
    const local = await waitForRun(sessionId);
    if (local) return local;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    session = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
  }
  if (session.status === "RUNNING") session = await markInterruptedIfStale(session);
  const reason = session.statusReason ?? "";
  if (session.status === "SUCCESS") return reason.includes("iteration limit") ? { status: "max-iterations", text: STEP_LIMIT_NOTICE } : { status: "completed", text: "" };
  if (session.status === "PAUSED") return { status: "paused", approvalId: "" };
  if (reason.startsWith("stopped at the time limit")) return { status: "stopped", reason: "timeout" };
  if (reason === "interrupted" || session.status === "RUNNING") return { status: "stopped", reason: "shutdown" };
  return { status: "failed", error: reason || "The run failed." };
}

async function taskFor(execution: ChronosExecution) {
  const settings = getBehaviourConfig().chronos;
  if (execution.jobId) {
    const job = await db().chronosJob.findUnique({ where: { id: execution.jobId } });
    if (!job) return undefined;
    return {
      name: job.name,
      modeName: job.name,
      trigger: "job" as const,
      text: jobTaskPrompt({ name: job.name, prompt: job.prompt, scheduledFor: execution.scheduledFor }),
      maxSteps: job.maxSteps,
      timeoutSeconds: job.timeoutSeconds,
      tools: (_sessionId: string) => [...new Set([...job.tools, NOTIFY_TOOL])],
    };
  }
  if (!execution.endpointId) return undefined;
  const endpoint = await db().webhookEndpoint.findUnique({ where: { id: execution.endpointId } });
  if (!endpoint) return undefined;
  const alerts = await db().webhookAlert.findMany({ where: { executionId: execution.id }, orderBy: { receivedAt: "asc" } });
  const shown = alerts.slice(0, settings.webhook.maxAlertsPerTriage);
  const first = alerts[0]?.name ?? "alert";
  return {
    name: alerts.length > 1 ? `${first} +${alerts.length - 1}` : first,
    modeName: endpoint.name,
    trigger: "webhook" as const,
    text: triagePrompt({
      endpointName: endpoint.name,
      instructions: endpoint.instructions,
      alerts: shown.map((alert) => ({ status: alert.status, name: alert.name, severity: alert.severity, summary: alert.summary, startsAt: alert.startsAt, payload: alert.payload })),
      omitted: alerts.length - shown.length,
    }),
    maxSteps: settings.defaultMaxSteps,
    timeoutSeconds: settings.defaultTimeoutSeconds,
    // Triage gets the read-only tools and notify, never anything that writes or executes.
    tools: (sessionId: string) => [
      ...runTools({ userId: execution.userId, sessionId })
        .list()
        .filter((tool) => tool.risk === "read")
        .map((tool) => tool.name),
      NOTIFY_TOOL,
    ],
  };
}

async function record(executionId: string, final: TFinal, sessionId: string | null): Promise<TExecutionResult> {
  const execution = await finishExecution({ executionId, status: final.status, reason: final.reason });
  return { executionId, status: (execution?.status ?? final.status).toLowerCase() as TExecutionResult["status"], sessionId };
}

/** What stops a running execution from outside (the job run's signal: a cancel or a shutdown). */
function stopReasonOf(signal: AbortSignal): TStopReason | undefined {
  const message = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "");
  if (/lost the run's lease/.test(message)) return undefined;
  return /shutting down/.test(message) ? "shutdown" : "user";
}

export async function runExecution(executionId: string, options: { signal?: AbortSignal } = {}): Promise<TExecutionResult> {
  const execution = await db().chronosExecution.findUnique({ where: { id: executionId } });
  if (!execution) return { executionId, status: "failed", sessionId: null };
  if (execution.status !== "QUEUED" && execution.status !== "RUNNING") {
    return { executionId, status: execution.status.toLowerCase() as TExecutionResult["status"], sessionId: execution.sessionId };
  }
  if (!(await holdsJob(execution))) {
    return record(executionId, { status: "SKIPPED", reason: "Another run of this job took over while this one waited." }, execution.sessionId);
  }
  const task = await taskFor(execution);
  if (!task) return record(executionId, { status: "FAILED", reason: "The job or endpoint was deleted before the run started." }, execution.sessionId);
  const sessionId = await ensureExecutionSession(execution, task.name);
  const session = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
  const deadline = Date.now() + task.timeoutSeconds * 1000 + 60_000;
  let outcome: TAgentOutcome;
  if (session.status !== "INIT") {
    log.warn("chronos execution resumed after its run had started; not starting it again", { executionId, sessionId });
    outcome = await outcomeOfEarlierRun(sessionId, deadline);
  } else {
    await markRunning(executionId);
    const stop = new AbortController();
    const onAbort = () => {
      const reason = options.signal ? stopReasonOf(options.signal) : undefined;
      if (reason) stop.abort(new RunStopped(reason));
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await startRun({
        session: { id: sessionId, userId: execution.userId },
        input: { kind: "prompt", text: task.text },
        trigger: task.trigger,
        parentSignal: stop.signal,
        limits: {
          allowedTools: task.tools(sessionId),
          maxIterations: task.maxSteps,
          iterationLimitNotice: STEP_LIMIT_NOTICE,
          timeoutMs: task.timeoutSeconds * 1000,
          approvals: "deny",
          instructions: chronosModeInstructions({ maxSteps: task.maxSteps, trigger: task.trigger, name: task.modeName }),
        },
      });
    } catch (error) {
      options.signal?.removeEventListener("abort", onAbort);
      // Refused before anything was written (too many runs at once): the jobs layer tries again later.
      if (error instanceof AppError && (error.code === "rate_limited" || (error.code === "unavailable" && error.headers["retry-after"]))) {
        throw new RetryAfterError(error.message, Number(error.headers["retry-after"] ?? 30) * 1000);
      }
      if (error instanceof AppError) return record(executionId, { status: "FAILED", reason: error.message }, sessionId);
      throw error;
    }
    outcome = (await waitForRun(sessionId)) ?? (await outcomeOfEarlierRun(sessionId, deadline));
    options.signal?.removeEventListener("abort", onAbort);
  }
  const { notifications } = await db().chronosExecution.findUniqueOrThrow({ where: { id: executionId }, select: { notifications: true } });
  return record(executionId, classifyOutcome(outcome, notifications > 0, task.timeoutSeconds), sessionId);
}

/** The last word on an execution whose job run failed for good (retries used up). */
export async function failExecution(executionId: string, error: unknown): Promise<TExecutionResult> {
  const message = error instanceof Error ? error.message : String(error);
  return record(executionId, { status: "FAILED", reason: message.slice(0, 1_000) }, null);
}

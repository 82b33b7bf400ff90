import type { TAgentEvent } from "@/lib/agent/agent-types";
import { RunStopped } from "@/lib/agent/stop-reasons";
import { resolveAgent } from "./profiles";
import { WORKER_PROFILE, type TWorkerProfile } from "./run-profile";
import { finalizeTask, getTaskOrThrow, isSessionFinished, isSessionResumable, isTerminal } from "./task-store";
import { WORKER_EVENT, ZWorkerEvent, type TWorkerEvent } from "./worker-event";
import { announceTask, forgetLive, publishLive, registerStop } from "./worker-hub";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { isAppError } from "@/lib/errors";
import { defineJob } from "@/lib/jobs/define-job";
import { createLogger } from "@/lib/observability/logger";
import { localRunOf, waitForRun } from "@/lib/runs/local-runs";
import { markInterruptedIfStale } from "@/lib/runs/run-lease";
import { startRun } from "@/lib/runs/start-run";
import { createSession } from "@/lib/sessions/sessions";

/**
 * One worker of a delegate / debate / pipeline call, as a durable job (embedded runner or Inngest):
 *   session  — its session (kind "sub-agent": trigger agent, under the parent session, with the
 *              agent's profile as run profile), created once;
 *   run      — the worker's run (startRun + waitForRun), or, after a crash or a shutdown, a resume
 *              of it from its stored steps; a finished worker is never run again;
 *   wait-N / check-N — while it waits for the owner's approval (or runs on in the process that
 *              continued it), the job sleeps and looks again, without holding anything;
 *   finish   — its result into its agent_tasks row.
 * The parent's tool only waits on the row (lib/agents/fan-out.ts).
 */
const log = createLogger("agents");

const WAIT_SCHEDULE = ["1s", "2s", "3s", "5s", "10s"];
const WORKER_RETRIES = 3;
const LIVE_WRITE_MS = 1_000;

type TDrive = "finished" | "waiting";

function titleOf(agent: string, task: string): string {
  const line = task.replace(/\s+/g, " ").trim();
  return `${agent}: ${line.length > 60 ? `${line.slice(0, 59)}…` : line}`;
}

async function failTask(taskId: string, error: string): Promise<void> {
  await db().agentTask.updateMany({ where: { id: taskId, status: { notIn: ["COMPLETED", "FAILED", "TIMED_OUT", "CANCELLED"] } }, data: { status: "FAILED", error, endedAt: new Date() } });
  announceTask(taskId);
}

/** Creates the worker's session once (a replay finds it). */
export async function ensureWorkerSession(data: TWorkerEvent): Promise<{ sessionId: string | null }> {
  const task = await getTaskOrThrow(data.taskId);
  if (task.sessionId || isTerminal(task.status)) return { sessionId: task.sessionId };
  if (task.cancelRequested) {
    await db().agentTask.updateMany({ where: { id: task.id, sessionId: null }, data: { status: "CANCELLED", error: "Cancelled: the parent run was stopped.", endedAt: new Date() } });
    announceTask(task.id);
    return { sessionId: null };
  }
  const agent = await resolveAgent(task.userId, task.agent);
  if (!agent) {
    await failTask(task.id, `The agent "${task.agent}" no longer exists.`);
    return { sessionId: null };
  }
  // The profile as it is now travels with the session: editing the agent later changes no running worker.
  const profile: TWorkerProfile = {
    kind: WORKER_PROFILE,
    taskId: task.id,
    agent: { name: agent.name, systemPrompt: agent.systemPrompt, allowedTools: agent.allowedTools, model: agent.model, maxIterations: agent.maxIterations, timeoutMs: task.timeoutMs, mayDelegate: agent.mayDelegate },
    taskKey: task.taskKey,
    depth: data.depth,
    approvals: data.approvals,
  };
  const session = await createSession({
    userId: task.userId,
    title: titleOf(agent.name, task.task),
    trigger: "agent",
    parentSessionId: task.parentSessionId,
    runProfile: profile as unknown as Prisma.InputJsonValue,
  });
  // Sites the owner allowed the parent chat to send data to hold for its workers too (as for child runs).
  const parent = await db().chatSession.findFirst({ where: { id: task.parentSessionId, userId: task.userId }, select: { allowedOrigins: true } });
  if (parent?.allowedOrigins.length) await db().chatSession.update({ where: { id: session.id }, data: { allowedOrigins: parent.allowedOrigins } });
  const claimed = await db().agentTask.updateMany({ where: { id: task.id, sessionId: null }, data: { sessionId: session.id, status: "RUNNING", startedAt: new Date() } });
  if (claimed.count === 0) {
    await db().chatSession.delete({ where: { id: session.id } });
    return { sessionId: (await getTaskOrThrow(task.id)).sessionId };
  }
  announceTask(task.id);
  return { sessionId: session.id };
}

/** Streams what the worker writes to the parent's card: in this process at once, elsewhere through the row. */
function liveSubscriber(taskId: string) {
  let text = "";
  let lastWrite = 0;
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    lastWrite = Date.now();
    timer = undefined;
    void db()
      .agentTask.updateMany({ where: { id: taskId, status: { in: ["RUNNING", "PAUSED", "QUEUED"] } }, data: { liveText: text.slice(-600) } })
      .catch(() => {});
  };
  const show = (value: string) => {
    publishLive(taskId, value);
    if (timer) return;
    const wait = Math.max(0, LIVE_WRITE_MS - (Date.now() - lastWrite));
    timer = setTimeout(write, wait);
    timer.unref?.();
  };
  return (event: TAgentEvent) => {
    if (event.type === "model-start") text = "";
    else if (event.type === "text-delta") {
      text += event.text;
      show(text);
    } else if (event.type === "text-discard") text = "";
    else if (event.type === "tool-start") show(`${text ? `${text}\n` : ""}→ ${event.call.name}`);
  };
}

/**
 * Moves the worker on from wherever it is: starts it, resumes it after a crash or shutdown, waits
 * for it here when it runs here, or reports "waiting" (approval pending, or running elsewhere).
 */
export async function driveWorker(data: TWorkerEvent, signal: AbortSignal): Promise<TDrive> {
  const task = await getTaskOrThrow(data.taskId);
  if (isTerminal(task.status) || !task.sessionId) return "finished";
  const found = await db().chatSession.findFirst({ where: { id: task.sessionId, userId: task.userId } });
  if (!found) return "finished";
  const session = await markInterruptedIfStale(found);
  if (isSessionFinished(session)) return "finished";
  if (session.status === "PAUSED") {
    await db().agentTask.updateMany({ where: { id: task.id, status: "RUNNING" }, data: { status: "PAUSED" } });
    announceTask(task.id);
    return "waiting";
  }
  if (session.status === "RUNNING") {
    if (!localRunOf(session.id)) return "waiting";
    await waitForRun(session.id);
    return driveWorker(data, signal);
  }
  if (task.cancelRequested) {
    await db().agentTask.updateMany({ where: { id: task.id }, data: { status: "CANCELLED", error: "Cancelled: the parent run was stopped.", endedAt: new Date() } });
    announceTask(task.id);
    return "finished";
  }
  const fresh = session.status === "INIT";
  if (!fresh && !isSessionResumable(session)) return "finished";
  // The job's signal means "this process is going away": the worker stops so that it can be resumed.
  const shutdown = new AbortController();
  const onAbort = () => shutdown.abort(new RunStopped("shutdown"));
  if (signal.aborted) return "waiting";
  signal.addEventListener("abort", onAbort, { once: true });
  let unregister: () => void = () => {};
  try {
    if (task.status !== "RUNNING") {
      await db().agentTask.updateMany({ where: { id: task.id }, data: { status: "RUNNING" } });
      announceTask(task.id);
    }
    await startRun({
      session: { id: session.id, userId: session.userId },
      input: fresh ? { kind: "prompt", text: task.task } : { kind: "resume" },
      trigger: "agent",
      parentStepId: fresh ? task.parentStepId : undefined,
      parentSignal: shutdown.signal,
      subscribers: [liveSubscriber(task.id)],
    });
    unregister = registerStop(task.id, () => localRunOf(session.id)?.controller.abort(new RunStopped("user")));
    const outcome = await waitForRun(session.id);
    if (outcome?.status === "paused") {
      await db().agentTask.updateMany({ where: { id: task.id, status: "RUNNING" }, data: { status: "PAUSED" } });
      announceTask(task.id);
      return "waiting";
    }
  } catch (error) {
    // Busy (429/503) or a database hiccup: the job retries. Anything else will not get better.
    if (isAppError(error) && error.code !== "rate_limited" && error.code !== "unavailable" && error.code !== "conflict") {
      await failTask(task.id, error.message);
      return "finished";
    }
    throw error;
  } finally {
    unregister();
    signal.removeEventListener("abort", onAbort);
    forgetLive(task.id);
  }
  const after = await db().chatSession.findUniqueOrThrow({ where: { id: session.id } });
  return isSessionFinished(after) ? "finished" : "waiting";
}

export const agentWorkerJob = defineJob(
  {
    id: "agents.worker",
    trigger: { event: WORKER_EVENT },
    schema: ZWorkerEvent,
    // How many workers of one call run at once is the parent's to decide (it sends the events in
    // waves, fan-out.ts): a limit here would have to be fixed when the catalog loads.
    retries: WORKER_RETRIES,
  },
  async ({ event, step, signal, attempt }) => {
    try {
      const { sessionId } = await step.run("session", () => ensureWorkerSession(event.data));
      if (sessionId) {
        let state = await step.run("run", () => driveWorker(event.data, signal));
        for (let round = 0; state === "waiting"; round++) {
          await step.sleep(`wait-${round}`, WAIT_SCHEDULE[Math.min(round, WAIT_SCHEDULE.length - 1)]!);
          state = await step.run(`check-${round}`, () => driveWorker(event.data, signal));
        }
      }
      return await step.run("finish", async () => ({ status: (await finalizeTask(event.data.taskId)).status }));
    } catch (error) {
      // The last attempt failed: the parent must not wait for ever.
      if (attempt >= WORKER_RETRIES) {
        log.error("a worker job failed", { taskId: event.data.taskId, error: (error as Error).message });
        await failTask(event.data.taskId, `The worker could not run: ${(error as Error).message}`);
      }
      throw error;
    }
  },
);

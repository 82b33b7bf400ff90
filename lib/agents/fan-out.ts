import { z } from "zod";
import { toApprovalView } from "@/lib/approvals/approval-view";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { AgentTask } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import type { TToolContext } from "@/lib/tools/registry";
import type { TAgentCallKind, TAgentsCardDetail, TWorkerApproval, TWorkerResult } from "@/lib/wire/agents";
import { deliverFile } from "./deliveries";
import type { TAgentDefinition } from "./profiles";
import { deliveryFolder } from "./run-profile";
import { createTasks, delegationsInRun, failedAttempts, finalizeTask, isSessionFinished, isTerminal, requestTasksCancel, taskHash, tasksByIds, workerResult, workerView } from "./task-store";
import { dispatchWorkers } from "./worker-event";
import { waitForChange } from "./worker-hub";

/**
 * A delegate / debate / pipeline call fans out into worker jobs and waits for their results:
 * 1. limits (depth, workers per run, attempts per task) are checked before anything is written;
 * 2. one agent_tasks row per worker (unique per call step and position, so a replay finds them);
 * 3. one job event per worker (an id derived from the same, so it is sent at most once);
 * 4. the rows are watched — in-process news wakes the loop at once, the database is the truth —
 *    and every change goes to the tool's card as progress; a worker that waits for approval shows
 *    the approval there and pauses only itself;
 * 5. when the parent is stopped (not when its server shuts down) its workers are stopped too.
 */
export type TWorkerSpec = { agent: TAgentDefinition; task: string; timeoutMs: number; taskKey: string };

const POLL_MS = 400;
/** A worker whose job has not started after this long is given up (is a job runner running?). */
const NEVER_STARTED_MS = 10 * 60_000;
/** A sent worker that has not started after this long is sent again (a no-op if the first send arrived). */
const RESEND_AFTER_MS = 30_000;

const ZToolInput = z.object({ toolCallId: z.string() });

export function timeoutFor(agent: TAgentDefinition, requestedSeconds: number | undefined): number {
  const { agents } = getBehaviourConfig();
  const seconds = requestedSeconds ?? agent.timeoutSeconds;
  return Math.min(seconds, agents.maxWorkerTimeoutSeconds) * 1000;
}

/** Refuses a call over the limits, before anything is written. */
async function checkLimits(context: TToolContext, specs: readonly TWorkerSpec[]): Promise<void> {
  const { agents } = getBehaviourConfig();
  const depth = (context.depth ?? 0) + 1;
  if (depth > agents.maxDepth) {
    throw new AppError("conflict", `Workers cannot start workers of their own here (agents.maxDepth is ${agents.maxDepth}). Do the work yourself.`);
  }
  if (context.runId) {
    const used = await delegationsInRun(context.runId);
    if (used + specs.length > agents.maxDelegationsPerRun) {
      throw new AppError(
        "conflict",
        `This run has started ${used} workers; ${specs.length} more would pass the limit of ${agents.maxDelegationsPerRun} per run (agents.maxDelegationsPerRun). Work with the results you have, or answer and let the user ask again.`,
      );
    }
  }
  for (const spec of specs) {
    const failed = await failedAttempts(context.sessionId, taskHash(spec.agent.name, spec.task));
    if (failed >= agents.maxAttemptsPerTask) {
      throw new AppError("conflict", `This task has already failed ${failed} times for ${spec.agent.name} (agents.maxAttemptsPerTask). Change the task or the agent, or do it another way.`);
    }
  }
}

async function toolCallIdOf(context: TToolContext): Promise<string> {
  const step = await db().step.findFirst({ where: { id: context.stepId, userId: context.userId }, select: { input: true } });
  const parsed = ZToolInput.safeParse(step?.input);
  if (!parsed.success) throw new AppError("conflict", "This call has no recorded step, so its workers could not be tracked.");
  return parsed.data.toolCallId;
}

/** Writes the call's rows; their jobs are started by waitForTasks (a pipeline's one by one). */
export async function startCall(context: TToolContext, kind: TAgentCallKind, specs: readonly TWorkerSpec[]): Promise<AgentTask[]> {
  await checkLimits(context, specs);
  const tasks = await createTasks({
    userId: context.userId,
    parentSessionId: context.sessionId,
    parentStepId: context.stepId,
    parentRunId: context.runId ?? null,
    toolCallId: await toolCallIdOf(context),
    kind,
    tasks: specs.map((spec, index) => ({ index, agent: spec.agent.name, taskKey: spec.taskKey, task: spec.task, timeoutMs: spec.timeoutMs })),
  });
  return tasks;
}

/**
 * Starts the jobs of waiting workers, at most agents.maxParallelWorkers of the call at a time.
 * Workers sent before but never started (the parent died in between) are sent again: their event
 * id makes that a no-op when the first send went through.
 */
async function dispatchDue(context: TToolContext, tasks: readonly AgentTask[]): Promise<boolean> {
  const { maxParallelWorkers } = getBehaviourConfig().agents;
  const open = tasks.filter((task) => !isTerminal(task.status));
  const active = open.filter((task) => task.dispatchedAt);
  const unsent = open.filter((task) => !task.dispatchedAt);
  const resend = active.filter((task) => !task.sessionId && Date.now() - task.dispatchedAt!.getTime() > RESEND_AFTER_MS);
  const next = unsent.slice(0, Math.max(0, maxParallelWorkers - active.length));
  if (!next.length && !resend.length) return false;
  await dispatchWorkers([...resend, ...next], context);
  return next.length > 0;
}

function stoppedByPerson(signal: AbortSignal): boolean {
  // The run core's stop reasons (lib/agent/stop-reasons.ts): a shutdown or a takeover leaves the
  // workers running — the jobs survive the restart and agent_results collects them.
  const reason = (signal.reason as { reason?: string } | undefined)?.reason;
  return reason !== "shutdown" && reason !== "leaseLost";
}

async function approvalsOf(sessionIds: string[]): Promise<Map<string, TWorkerApproval>> {
  if (!sessionIds.length) return new Map();
  const rows = await db().approval.findMany({ where: { sessionId: { in: sessionIds }, status: "PENDING" } });
  return new Map(rows.map((row) => [row.sessionId, toApprovalView(row)]));
}

function progressText(kind: TAgentCallKind, tasks: readonly AgentTask[], paused: number): string {
  const done = tasks.filter((task) => isTerminal(task.status)).length;
  const waiting = paused ? ` · ${paused} waiting for your approval` : "";
  if (kind === "pipeline") return `Step ${Math.min(done + 1, tasks.length)} of ${tasks.length}${waiting}`;
  return `${done} of ${tasks.length} worker${tasks.length === 1 ? "" : "s"} finished${waiting}`;
}

/**
 * Waits until every one of `ids` has finished, streaming each change to the card. The card shows
 * `shown` (all workers of the call; for a pipeline also the steps not started yet).
 */
export async function waitForTasks(context: TToolContext, kind: TAgentCallKind, ids: readonly string[], shown: readonly string[] = ids): Promise<AgentTask[]> {
  const all = [...new Set([...shown, ...ids])];
  let last = "";
  while (true) {
    if (context.signal.aborted) {
      if (stoppedByPerson(context.signal)) await requestTasksCancel(await tasksByIds(ids));
      throw context.signal.reason ?? new Error("stopped");
    }
    let tasks = await tasksByIds(all);
    if (await dispatchDue(context, tasks.filter((task) => ids.includes(task.id)))) tasks = await tasksByIds(all);
    const sessionIds = tasks.flatMap((task) => (!isTerminal(task.status) && task.sessionId ? [task.sessionId] : []));
    const sessions = sessionIds.length ? await db().chatSession.findMany({ where: { id: { in: sessionIds } }, select: { id: true, status: true, statusReason: true } }) : [];
    const byId = new Map(sessions.map((session) => [session.id, session]));
    // A worker can finish without its job noticing yet (an approval continued it elsewhere).
    let changed = false;
    for (const task of tasks) {
      const session = task.sessionId ? byId.get(task.sessionId) : undefined;
      if (!isTerminal(task.status) && session && isSessionFinished(session)) {
        await finalizeTask(task.id);
        changed = true;
      } else if (ids.includes(task.id) && task.status === "QUEUED" && !task.sessionId && task.dispatchedAt && Date.now() - task.dispatchedAt.getTime() > NEVER_STARTED_MS) {
        await db().agentTask.updateMany({ where: { id: task.id, status: "QUEUED", sessionId: null }, data: { status: "FAILED", error: "The worker never started: no job runner picked it up.", endedAt: new Date() } });
        changed = true;
      }
    }
    if (changed) tasks = await tasksByIds(all);
    const approvals = await approvalsOf(sessions.filter((session) => session.status === "PAUSED").map((session) => session.id));
    const views = tasks.map((task) => workerView(task, { session: task.sessionId ? byId.get(task.sessionId) : undefined, approval: task.sessionId ? approvals.get(task.sessionId) : undefined }));
    const detail: TAgentsCardDetail = { kind, workers: views };
    const serialized = JSON.stringify(detail);
    const wanted = tasks.filter((task) => ids.includes(task.id));
    const finished = wanted.filter((task) => isTerminal(task.status)).length;
    if (serialized !== last) {
      last = serialized;
      context.progress({ text: progressText(kind, tasks, views.filter((view) => view.status === "paused").length), fraction: tasks.length ? tasks.filter((task) => isTerminal(task.status)).length / tasks.length : 0, detail });
    }
    if (finished === wanted.length) return wanted;
    await waitForChange(all, POLL_MS, context.signal);
  }
}

/** A pipeline step's output as the next step's {{input}}: its summary and its files, or a pointer when long. */
async function stepOutput(task: AgentTask, userId: string): Promise<string> {
  const result = workerResult(task);
  const summary = typeof result.summary === "string" ? result.summary : JSON.stringify(result.summary ?? {}, null, 2);
  const files = Object.values(result.artifact_pointers);
  const text = files.length ? `${summary}\n\nFiles: ${files.join(", ")}` : summary;
  const limit = getBehaviourConfig().agents.inlineOutputCharacters;
  if (text.length <= limit) return text;
  // Long outputs travel as a file in the pipeline's delivery folder, which every step can read.
  const pointer = await deliverFile({ userId, taskId: task.id, folder: deliveryFolder(task.taskKey), path: `step-${task.index + 1}-output.md`, content: text });
  return `[The previous step's output is ${text.length} characters long; it is in the file ${pointer}. Read it with view_file.]`;
}

/**
 * Runs (or, after a restart, continues) a pipeline: each step starts when the one before it has
 * finished, with {{input}} replaced by that step's output. A failed step ends the pipeline.
 */
export async function runPipeline(context: TToolContext, tasks: AgentTask[]): Promise<AgentTask[]> {
  const ids = tasks.map((task) => task.id);
  let input = "";
  for (const original of tasks) {
    let task = (await tasksByIds([original.id]))[0]!;
    if (!isTerminal(task.status)) {
      if (!task.sessionId && task.task.includes("{{input}}")) {
        const filled = task.task.replaceAll("{{input}}", input);
        await db().agentTask.update({ where: { id: task.id }, data: { task: filled, taskHash: taskHash(task.agent, filled) } });
        task = { ...task, task: filled };
      }
      task = (await waitForTasks(context, "pipeline", [task.id], ids))[0] ?? task;
    }
    if (task.status !== "COMPLETED" || workerResult(task).status !== "success") break;
    input = await stepOutput(task, context.userId);
  }
  return tasksByIds(ids);
}

/** The JSON the orchestrator model gets back. */
export function callResult(kind: TAgentCallKind, tasks: readonly AgentTask[], extra: Record<string, unknown> = {}): string {
  const results: TWorkerResult[] = tasks.map((task) => (isTerminal(task.status) ? workerResult(task) : { ...workerResult(task), status: "error", error: "Not run: an earlier step failed." }));
  if (kind === "delegate") return JSON.stringify(results[0], null, 2);
  if (kind === "debate") {
    const failed = results.filter((result) => result.status !== "success");
    const note = failed.length
      ? `${results.length - failed.length} of ${results.length} workers answered; ${failed.map((result) => `${result.agent} (${result.status})`).join(", ")} did not. Weigh the answers you have.`
      : undefined;
    return JSON.stringify({ ...extra, results, ...(note ? { note } : {}) }, null, 2);
  }
  const lastDone = [...results].reverse().find((result) => result.status === "success");
  const complete = results.every((result) => result.status === "success");
  return JSON.stringify({ status: complete ? "success" : "error", output: complete ? lastDone?.summary : null, steps: results }, null, 2);
}

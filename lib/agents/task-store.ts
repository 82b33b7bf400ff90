import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "@/lib/db/client";
import type { AgentTask, AgentTaskStatus, ChatSession, Prisma } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import type { TWorkerApproval, TWorkerResult, TWorkerStatus, TWorkerView } from "@/lib/wire/agents";
import { parseWorkerReply, verifyPointers } from "./reply-contract";
import { announceTask, liveTextOf } from "./worker-hub";

/**
 * The agent_tasks rows: one per worker of a delegate / debate / pipeline call. The worker's job
 * creates its session and runs it; whoever first sees the session finished (the job, or the parent
 * waiting for it) stores the result, once (a conditional update). Results are read from the
 * worker's session — its last model reply, its stop reason — so they never depend on a process
 * that may have died.
 */
export const TERMINAL: readonly AgentTaskStatus[] = ["COMPLETED", "FAILED", "TIMED_OUT", "CANCELLED"];

export function isTerminal(status: AgentTaskStatus): boolean {
  return TERMINAL.includes(status);
}

/** A session stopped this way can be continued (by the worker's job), so it is not finished. */
const RESUMABLE_REASONS = ["interrupted", "stopped because the server is shutting down", "stopped because another server took this session over"];

export function isSessionFinished(session: Pick<ChatSession, "status" | "statusReason">): boolean {
  if (session.status === "SUCCESS") return true;
  return session.status === "FAILED" && !RESUMABLE_REASONS.includes(session.statusReason ?? "");
}

export function isSessionResumable(session: Pick<ChatSession, "status" | "statusReason">): boolean {
  return session.status === "FAILED" && RESUMABLE_REASONS.includes(session.statusReason ?? "");
}

export function newTaskKey(): string {
  return randomBytes(6).toString("hex").slice(0, 10);
}

export function taskHash(agent: string, task: string): string {
  return createHash("sha256").update(`${agent}\u0000${task.trim()}`).digest("hex");
}

export type TNewTask = { index: number; agent: string; taskKey: string; task: string; timeoutMs: number };

/** One row per worker; a repeated call for the same step finds the rows instead of adding more. */
export async function createTasks(options: {
  userId: string;
  parentSessionId: string;
  parentStepId: string;
  parentRunId: string | null;
  toolCallId: string;
  kind: string;
  tasks: TNewTask[];
}): Promise<AgentTask[]> {
  await db().agentTask.createMany({
    data: options.tasks.map((task) => ({
      userId: options.userId,
      parentSessionId: options.parentSessionId,
      parentStepId: options.parentStepId,
      parentRunId: options.parentRunId,
      toolCallId: options.toolCallId,
      kind: options.kind,
      index: task.index,
      agent: task.agent,
      taskKey: task.taskKey,
      task: storableText(task.task),
      taskHash: taskHash(task.agent, task.task),
      timeoutMs: task.timeoutMs,
    })),
    skipDuplicates: true,
  });
  return tasksOfStep(options.userId, options.parentStepId);
}

export async function tasksOfStep(userId: string, parentStepId: string): Promise<AgentTask[]> {
  return db().agentTask.findMany({ where: { userId, parentStepId }, orderBy: { index: "asc" } });
}

export async function tasksByIds(ids: readonly string[]): Promise<AgentTask[]> {
  return db().agentTask.findMany({ where: { id: { in: [...ids] } }, orderBy: { index: "asc" } });
}

export async function getTaskOrThrow(taskId: string): Promise<AgentTask> {
  return db().agentTask.findUniqueOrThrow({ where: { id: taskId } });
}

export async function delegationsInRun(runId: string): Promise<number> {
  return db().agentTask.count({ where: { parentRunId: runId } });
}

/** Times this task went wrong for this agent in this chat: failed, timed out, or answered "error". */
export async function failedAttempts(parentSessionId: string, hash: string): Promise<number> {
  return db().agentTask.count({
    where: {
      parentSessionId,
      taskHash: hash,
      OR: [{ status: { in: ["FAILED", "TIMED_OUT"] } }, { status: "COMPLETED", result: { path: ["status"], equals: "error" } }],
    },
  });
}

/** The parent stopped: its workers stop too (at once when they run here; else by their next heartbeat). */
export async function requestTasksCancel(tasks: readonly AgentTask[]): Promise<void> {
  const open = tasks.filter((task) => !isTerminal(task.status));
  if (!open.length) return;
  await db().agentTask.updateMany({ where: { id: { in: open.map((task) => task.id) } }, data: { cancelRequested: true } });
  const sessionIds = open.flatMap((task) => (task.sessionId ? [task.sessionId] : []));
  if (sessionIds.length) await db().chatSession.updateMany({ where: { id: { in: sessionIds }, status: "RUNNING" }, data: { stopRequestedAt: new Date() } });
  // Not started yet: nothing will run them.
  await db().agentTask.updateMany({
    where: { id: { in: open.map((task) => task.id) }, sessionId: null, status: "QUEUED" },
    data: { status: "CANCELLED", error: "cancelled: the parent run was stopped", endedAt: new Date() },
  });
}

const ZModelOutput = z.object({ text: z.string() });

/** The worker's final reply: the text of its last completed model call. */
async function finalText(sessionId: string): Promise<string> {
  const step = await db().step.findFirst({ where: { sessionId, type: "MODEL_CALL", status: "COMPLETED" }, orderBy: { seq: "desc" }, select: { output: true } });
  const parsed = ZModelOutput.safeParse(step?.output);
  return parsed.success ? parsed.data.text : "";
}

function outcomeOf(task: AgentTask, session: Pick<ChatSession, "status" | "statusReason"> | null): { status: AgentTaskStatus; error: string | null } | "reply" {
  if (!session) return { status: "FAILED", error: "The worker's session no longer exists." };
  const reason = session.statusReason ?? "";
  if (session.status === "SUCCESS") {
    if (!reason) return "reply";
    if (reason.includes("iteration limit")) return { status: "FAILED", error: "The worker stopped at its limit of model calls without a final answer." };
    if (reason.includes("approval expired")) return { status: "FAILED", error: "The worker's request for approval expired before anyone decided." };
    return { status: "FAILED", error: reason };
  }
  if (reason.includes("time limit")) return { status: "TIMED_OUT", error: `The worker ran out of time (${Math.round(task.timeoutMs / 1000)} s).` };
  if (task.cancelRequested) return { status: "CANCELLED", error: "Cancelled: the parent run was stopped." };
  return { status: "FAILED", error: reason || "The worker failed." };
}

/**
 * Stores the result of a worker whose session has finished; a no-op when it has not, or when the
 * result is already stored. Returns the row as it is now.
 */
export async function finalizeTask(taskId: string): Promise<AgentTask> {
  const task = await getTaskOrThrow(taskId);
  if (isTerminal(task.status) || !task.sessionId) return task;
  const session = await db().chatSession.findUnique({ where: { id: task.sessionId }, select: { status: true, statusReason: true } });
  if (session && !isSessionFinished(session)) return task;
  const usage = await db().step.aggregate({ where: { sessionId: task.sessionId }, _sum: { inputTokens: true, outputTokens: true } });
  const outcome = outcomeOf(task, session);
  let data: Prisma.AgentTaskUpdateManyMutationInput;
  if (outcome === "reply") {
    const reply = parseWorkerReply(await finalText(task.sessionId));
    const { pointers, invented } = verifyPointers(reply.artifactPointers, task.artifacts);
    const result = { status: reply.status, summary: reply.summary, artifactPointers: pointers, structured: reply.structured, ...(invented.length ? { inventedPointers: invented } : {}) };
    data = { status: "COMPLETED", result: result as Prisma.InputJsonValue };
  } else {
    data = { status: outcome.status, error: outcome.error };
  }
  await db().agentTask.updateMany({
    where: { id: task.id, status: { notIn: [...TERMINAL] } },
    data: { ...data, liveText: null, endedAt: new Date(), inputTokens: usage._sum.inputTokens ?? 0, outputTokens: usage._sum.outputTokens ?? 0 },
  });
  announceTask(task.id);
  return getTaskOrThrow(task.id);
}

const ZStoredResult = z.object({
  status: z.enum(["success", "error"]),
  summary: z.unknown(),
  artifactPointers: z.record(z.string(), z.string()),
  inventedPointers: z.array(z.string()).optional(),
});

/** A finished worker as the orchestrator model reads it. */
export function workerResult(task: AgentTask): TWorkerResult {
  const tokens = { input: task.inputTokens, output: task.outputTokens };
  const stored = ZStoredResult.safeParse(task.result);
  if (task.status === "COMPLETED" && stored.success) {
    const note = stored.data.inventedPointers?.length ? { error: `Ignored pointers to files it never delivered: ${stored.data.inventedPointers.join(", ")}` } : {};
    return { agent: task.agent, status: stored.data.status, summary: stored.data.summary, artifact_pointers: stored.data.artifactPointers, session: task.sessionId, tokens, ...note };
  }
  const status = task.status === "TIMED_OUT" ? "timeout" : task.status === "CANCELLED" ? "cancelled" : "error";
  const delivered = verifyPointers({}, task.artifacts).pointers;
  return { agent: task.agent, status, summary: null, artifact_pointers: delivered, session: task.sessionId, error: task.error ?? "The worker did not finish.", tokens };
}

const VIEW_STATUS: Record<AgentTaskStatus, TWorkerStatus> = {
  QUEUED: "queued",
  RUNNING: "running",
  PAUSED: "paused",
  COMPLETED: "completed",
  FAILED: "failed",
  TIMED_OUT: "timed_out",
  CANCELLED: "cancelled",
};

/** A worker as its card shows it. */
export function workerView(task: AgentTask, live: { session?: Pick<ChatSession, "status"> | null; approval?: TWorkerApproval }): TWorkerView {
  const result = isTerminal(task.status) ? workerResult(task) : undefined;
  let status = VIEW_STATUS[task.status];
  if (!result && live.session?.status === "PAUSED") status = "paused";
  else if (!result && task.sessionId && status === "queued") status = "running";
  return {
    index: task.index,
    agent: task.agent,
    status,
    sessionId: task.sessionId,
    ...(result ? { summary: result.summary, replyStatus: result.status === "success" ? "success" : "error", error: result.error ?? null } : { live: liveTextOf(task.id) ?? task.liveText ?? undefined }),
    artifacts: task.artifacts,
    ...(status === "paused" && live.approval ? { approval: live.approval } : {}),
    inputTokens: task.inputTokens,
    outputTokens: task.outputTokens,
  };
}

import { randomUUID } from "node:crypto";
import { runAgent, type TAgentEvent, type TAgentOutcome, type TAgentRecorder, type TResumeTurn } from "@/lib/agent/run-agent";
import { buildSystemPrompt } from "@/lib/agent/system-prompt";
import { decideToolCall } from "@/lib/approvals/policy";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChatSession, Prisma, Step } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { configuredProviders, retryPolicy } from "@/lib/providers/registry";
import type { TProvider } from "@/lib/providers/types";
import { defaultToolRegistry } from "@/lib/tools/default-tools";
import type { ToolRegistry } from "@/lib/tools/registry";
import { buildHistory, type TStoredModelOutput, type TStoredToolInput, type TStoredToolOutput } from "./history";
import { claimSessionAndRecordStep, finishStep, listSteps, recordStep } from "./steps";
import { stepKey } from "./sessions";

/**
 * Runs the agent for a session, detached from any HTTP response: the browser can disconnect and the
 * run still finishes and is persisted. Events are kept in memory while the run lives, so any
 * number of listeners (the original response, a reconnecting tab) can follow it. A heartbeat lease
 * on the session row tells other processes, and this one after a restart, whether the run is alive.
 */
const log = createLogger("run");

export type TRunEvent =
  | TAgentEvent
  | { type: "run-start"; runId: string; sessionId: string; userStep?: string }
  | { type: "run-end"; outcome: TAgentOutcome };

const LEASE_MS = 15_000;
const HEARTBEAT_MS = 5_000;
/** Identifies this process in `runnerId`: a different value after a restart. */
export const RUNNER_ID = randomUUID();

type TRun = {
  id: string;
  sessionId: string;
  userId: string;
  events: TRunEvent[];
  listeners: Set<() => void>;
  done: boolean;
  controller: AbortController;
  finished: Promise<TAgentOutcome>;
};

const globalRuns = globalThis as unknown as { xclawRuns?: Map<string, TRun> };
const activeRuns = (globalRuns.xclawRuns ??= new Map<string, TRun>());

export function isRunActive(sessionId: string): boolean {
  return activeRuns.has(sessionId);
}

/** Follows a run's events from the start (late listeners replay what they missed). */
export async function* followRun(sessionId: string, signal?: AbortSignal): AsyncIterable<TRunEvent> {
  const run = activeRuns.get(sessionId);
  if (!run) return;
  let index = 0;
  while (true) {
    while (index < run.events.length) yield run.events[index++]!;
    if (run.done || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        run.listeners.delete(wake);
        signal?.removeEventListener("abort", wake);
        resolve();
      };
      run.listeners.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }
}

export function stopRun(sessionId: string): boolean {
  const run = activeRuns.get(sessionId);
  if (!run) return false;
  run.controller.abort(new Error("stopped by the user"));
  return true;
}

function handle(step: { id: string; seq: number }) {
  return { id: step.id, key: stepKey(step.seq) };
}

/** The session a run belongs to: its id and its owner (every query below filters by both). */
export type TSessionRef = Pick<ChatSession, "id" | "userId">;

function createRecorder(session: TSessionRef, config: TBehaviourConfig): TAgentRecorder {
  const base = { sessionId: session.id, userId: session.userId };
  return {
    async modelCallStarted({ iteration }) {
      return handle(await recordStep({ ...base, type: "MODEL_CALL", name: "model", input: { iteration } }));
    },
    async modelCallFinished(step, result) {
      const output: TStoredModelOutput = { text: result.text, toolCalls: result.toolCalls };
      await finishStep(step.id, {
        status: "COMPLETED",
        output: output as unknown as Prisma.InputJsonValue,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        provider: result.provider,
        model: result.model,
      });
      await db().chatSession.update({ where: { id: session.id }, data: { lastProvider: result.provider, lastModel: result.model } });
    },
    async modelCallFailed(step, error, partialText) {
      // The partial text is shown on reload; a FAILED step is never replayed to the model.
      const output = partialText ? ({ text: partialText, toolCalls: [], partial: true } as Prisma.InputJsonValue) : undefined;
      await finishStep(step.id, { status: "FAILED", error, output });
    },
    async toolCallStarted(call, parent) {
      const input: TStoredToolInput = { toolCallId: call.id, name: call.name, arguments: call.arguments };
      return handle(await recordStep({ ...base, type: "TOOL_CALL", name: call.name, parentStepId: parent.id, input: input as unknown as Prisma.InputJsonValue }));
    },
    async toolCallFinished(step, result) {
      const output: TStoredToolOutput = { content: result.content, isError: result.isError, durationMs: result.durationMs };
      await finishStep(step.id, { status: result.isError ? "FAILED" : "COMPLETED", output: output as unknown as Prisma.InputJsonValue, error: result.isError ? "tool reported an error" : undefined });
    },
    async note(text) {
      await recordStep({ ...base, type: "SYSTEM_NOTE", name: "note", status: "COMPLETED", input: { text, tone: "warning" } });
    },
    async approvalRequested(call, step, details) {
      const expiresAt = new Date(Date.now() + config.approvals.expireMinutes * 60_000);
      const approval = await db().approval.create({
        data: {
          userId: session.userId,
          sessionId: session.id,
          stepId: step.id,
          toolName: call.name,
          toolCallId: call.id,
          risk: details.risk,
          arguments: (call.arguments ?? {}) as Prisma.InputJsonValue,
          preview: details.preview as unknown as Prisma.InputJsonValue,
          expiresAt,
        },
      });
      return { approvalId: approval.id, expiresAt };
    },
  };
}

export const RESUME_INSTRUCTION =
  "[The previous run was interrupted by a server restart. Continue the task from the conversation above. Tool calls marked as interrupted did not complete and were not re-run: check their effect before repeating them.]";

/** What starts a run: a new message, a resume after a crash, or the owner's approval decision. */
export type TRunInput =
  | { kind: "message"; text: string }
  | { kind: "resume" }
  | { kind: "approval"; approvalId: string; decision: "approve" | "deny"; reason?: string };

export type TStartRunOptions = {
  session: TSessionRef;
  input: TRunInput;
  /** Tests inject providers and tools; the app uses the configured ones. */
  providers?: TProvider[];
  tools?: ToolRegistry;
};

const SESSION_BUSY = "This session is already running. Wait for it to finish or press Stop.";

/**
 * Claims the session for this process and writes the run's first step, by input kind, in one
 * statement on the hot path. Only when the claim fails does it look at the session to say why
 * (not found, waiting for approval, running — or interrupted, which it marks and claims again).
 */
async function claimForRun(session: TSessionRef, input: TRunInput, retry = true): Promise<{ userStep?: string; allowedTools: string[] }> {
  const lease = { runnerId: RUNNER_ID, leaseExpiresAt: new Date(Date.now() + LEASE_MS) };
  if (input.kind === "approval") {
    // Only a session paused for approval continues this way; the approval row was decided just before.
    const { count } = await db().chatSession.updateMany({
      where: { id: session.id, userId: session.userId, status: "PAUSED" },
      data: { status: "RUNNING", statusReason: null, ...lease },
    });
    if (count === 0) throw new AppError("conflict", SESSION_BUSY);
    const { allowedTools } = await db().chatSession.findUniqueOrThrow({ where: { id: session.id }, select: { allowedTools: true } });
    return { allowedTools };
  }
  const claimed = await claimSessionAndRecordStep({
    sessionId: session.id,
    userId: session.userId,
    ...lease,
    title: input.kind === "message" ? input.text.replace(/\s+/g, " ").trim().slice(0, 60) || null : null,
    step:
      input.kind === "message"
        ? { type: "USER_INPUT", name: "user", input: { text: input.text } }
        : { type: "SYSTEM_NOTE", name: "resume", input: { text: RESUME_INSTRUCTION, forModel: true, tone: "info" } },
  });
  if (claimed) return { userStep: input.kind === "message" ? stepKey(claimed.seq) : undefined, allowedTools: claimed.allowedTools };
  const current = await db().chatSession.findFirst({ where: { id: session.id, userId: session.userId } });
  if (!current) throw new AppError("not_found", "No such session.");
  if (current.status === "PAUSED") throw new AppError("conflict", "This session is waiting for your approval. Approve or deny the pending action first.");
  if (retry && current.status === "RUNNING" && (await markInterruptedIfStale(current)).status !== "RUNNING") return claimForRun(session, input, false);
  throw new AppError("conflict", SESSION_BUSY);
}

/** For a run that continues after an approval decision: the turn it interrupted. */
async function resumeTurnFor(input: TRunInput & { kind: "approval" }, steps: Step[]): Promise<TResumeTurn> {
  const approval = await db().approval.findUniqueOrThrow({ where: { id: input.approvalId } });
  const toolStep = steps.find((step) => step.id === approval.stepId);
  const modelStep = steps.find((step) => step.id === toolStep?.parentStepId);
  if (!toolStep || !modelStep) throw new AppError("conflict", "The step this approval belongs to no longer exists (was the session rolled back?).");
  const toolCalls = (modelStep.output as TStoredModelOutput).toolCalls;
  const finishedCallIds = new Set(
    steps
      .filter((step) => step.type === "TOOL_CALL" && step.parentStepId === modelStep.id && step.status !== "RUNNING")
      .map((step) => (step.input as TStoredToolInput).toolCallId),
  );
  return {
    modelStep: { id: modelStep.id, key: stepKey(modelStep.seq) },
    toolCalls,
    finishedCallIds,
    decided: { callId: approval.toolCallId, step: { id: toolStep.id, key: stepKey(toolStep.seq) }, decision: input.decision, reason: input.reason },
  };
}

/**
 * Starts a run and returns at once. Claiming the session is atomic (INIT/SUCCESS/FAILED → RUNNING,
 * or PAUSED → RUNNING for an approval), so two requests cannot run the same session at once.
 */
export async function startRun(options: TStartRunOptions): Promise<{ runId: string }> {
  const { session, input } = options;
  const providers = options.providers ?? configuredProviders();
  if (!providers.length) {
    throw new AppError("unavailable", "No model provider is configured. An administrator needs to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (see the README).");
  }
  const { userStep, allowedTools } = await claimForRun(session, input);

  const run: TRun = {
    id: randomUUID(),
    sessionId: session.id,
    userId: session.userId,
    events: [],
    listeners: new Set(),
    done: false,
    controller: new AbortController(),
    finished: Promise.resolve({ status: "aborted" }),
  };
  const emit = (event: TRunEvent) => {
    run.events.push(event);
    for (const wake of [...run.listeners]) wake();
  };
  activeRuns.set(session.id, run);
  emit({ type: "run-start", runId: run.id, sessionId: session.id, userStep });

  const heartbeat = setInterval(() => {
    void db()
      .chatSession.updateMany({ where: { id: session.id, runnerId: RUNNER_ID }, data: { leaseExpiresAt: new Date(Date.now() + LEASE_MS) } })
      .catch(() => {});
  }, HEARTBEAT_MS);
  heartbeat.unref?.();

  run.finished = (async (): Promise<TAgentOutcome> => {
    let outcome: TAgentOutcome;
    try {
      const config = getBehaviourConfig();
      const tools = options.tools ?? defaultToolRegistry();
      const steps = await listSteps({ sessionId: session.id, userId: session.userId });
      const resume = input.kind === "approval" ? await resumeTurnFor(input, steps) : undefined;
      const openCallIds = resume ? new Set(resume.toolCalls.filter((call) => !resume.finishedCallIds.has(call.id)).map((call) => call.id)) : undefined;
      outcome = await runAgent({
        providers,
        retryPolicy: retryPolicy(config),
        tools,
        system: buildSystemPrompt({ tools, instructions: config.agent.instructions }),
        history: buildHistory(steps, { openCallIds }),
        maxIterations: config.agent.maxIterations,
        maxParallelTools: config.agent.maxParallelTools,
        signal: run.controller.signal,
        toolContext: { userId: session.userId, sessionId: session.id },
        recorder: createRecorder(session, config),
        emit,
        authorize: (call, tool) => decideToolCall({ tool, input: call.arguments, config, allowedTools }),
        resume,
      });
    } catch (error) {
      log.error("run crashed", { sessionId: session.id, error });
      outcome = { status: "failed", error: error instanceof AppError ? error.message : "The run failed unexpectedly. Try again; if it keeps happening, tell an administrator." };
    }
    clearInterval(heartbeat);
    const final =
      outcome.status === "completed" || outcome.status === "max-iterations"
        ? { status: "SUCCESS" as const, statusReason: outcome.status === "max-iterations" ? "stopped at the iteration limit" : null }
        : outcome.status === "paused"
          ? { status: "PAUSED" as const, statusReason: "waiting for approval" }
          : outcome.status === "aborted"
            ? { status: "FAILED" as const, statusReason: "stopped by the user" }
            : { status: "FAILED" as const, statusReason: outcome.error };
    try {
      if (outcome.status === "aborted") {
        await recordStep({ sessionId: session.id, userId: session.userId, type: "SYSTEM_NOTE", name: "stop", status: "COMPLETED", input: { text: "Stopped by the user.", tone: "warning" } });
      }
      await db().chatSession.update({ where: { id: session.id }, data: { ...final, runnerId: null, leaseExpiresAt: null } });
    } catch (error) {
      log.error("could not record the end of a run", { sessionId: session.id, error });
    }
    emit({ type: "run-end", outcome });
    run.done = true;
    for (const wake of [...run.listeners]) wake();
    activeRuns.delete(session.id);
    return outcome;
  })();
  return { runId: run.id };
}

/** For tests and graceful shutdown: waits until the session's run (if any) has finished. */
export async function waitForRun(sessionId: string): Promise<TAgentOutcome | undefined> {
  return activeRuns.get(sessionId)?.finished;
}

/**
 * A session left RUNNING by a process that is gone (its lease expired, or it was this process
 * before a restart) is marked interrupted: running steps fail with a note, the session is FAILED
 * with reason "interrupted" and can be resumed. Returns the updated session.
 */
export async function markInterruptedIfStale(session: ChatSession): Promise<ChatSession> {
  if (session.status !== "RUNNING" || activeRuns.has(session.id)) return session;
  const stale = session.runnerId === RUNNER_ID || !session.leaseExpiresAt || session.leaseExpiresAt.getTime() < Date.now();
  if (!stale) return session;
  const updated = await db().chatSession.updateMany({
    where: { id: session.id, status: "RUNNING", runnerId: session.runnerId },
    data: { status: "FAILED", statusReason: "interrupted", runnerId: null, leaseExpiresAt: null },
  });
  if (updated.count === 0) return (await db().chatSession.findUniqueOrThrow({ where: { id: session.id } }));
  await db().step.updateMany({
    where: { sessionId: session.id, status: "RUNNING" },
    data: { status: "FAILED", error: "interrupted: the server stopped while this step ran", endedAt: new Date() },
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

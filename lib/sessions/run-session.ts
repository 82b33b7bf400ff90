import { randomUUID } from "node:crypto";
import { runAgent, type TAgentEvent, type TAgentOutcome, type TAgentRecorder } from "@/lib/agent/run-agent";
import { buildSystemPrompt } from "@/lib/agent/system-prompt";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChatSession, Prisma } from "@/lib/db/generated/client";
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

function createRecorder(session: ChatSession): TAgentRecorder {
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
    async modelCallFailed(step, error) {
      await finishStep(step.id, { status: "FAILED", error });
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
  };
}

export const RESUME_INSTRUCTION =
  "[The previous run was interrupted by a server restart. Continue the task from the conversation above. Tool calls marked as interrupted did not complete and were not re-run: check their effect before repeating them.]";

export type TStartRunOptions = {
  session: ChatSession;
  /** The new user message; omitted for a resume. */
  text?: string;
  /** Tests inject providers and tools; the app uses the configured ones. */
  providers?: TProvider[];
  tools?: ToolRegistry;
};

/**
 * Starts a run and returns at once. Claims the session atomically (INIT/SUCCESS/FAILED → RUNNING),
 * so two requests cannot run the same session at the same time.
 */
export async function startRun(options: TStartRunOptions): Promise<{ runId: string }> {
  const { session } = options;
  const providers = options.providers ?? configuredProviders();
  if (!providers.length) {
    throw new AppError("unavailable", "No model provider is configured. An administrator needs to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (see the README).");
  }
  const firstStep =
    options.text !== undefined
      ? { type: "USER_INPUT" as const, name: "user", input: { text: options.text } }
      : { type: "SYSTEM_NOTE" as const, name: "resume", input: { text: RESUME_INSTRUCTION, forModel: true, tone: "info" } };
  const claimed = await claimSessionAndRecordStep({
    sessionId: session.id,
    userId: session.userId,
    runnerId: RUNNER_ID,
    leaseExpiresAt: new Date(Date.now() + LEASE_MS),
    title: options.text !== undefined ? options.text.replace(/\s+/g, " ").trim().slice(0, 60) || null : null,
    step: firstStep,
  });
  if (!claimed) throw new AppError("conflict", "This session is already running. Wait for it to finish or press Stop.");

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

  const userStep = options.text !== undefined ? stepKey(claimed.seq) : undefined;
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
      const history = buildHistory(await listSteps({ sessionId: session.id, userId: session.userId }));
      outcome = await runAgent({
        providers,
        retryPolicy: retryPolicy(config),
        tools,
        system: buildSystemPrompt({ tools, instructions: config.agent.instructions }),
        history,
        maxIterations: config.agent.maxIterations,
        maxParallelTools: config.agent.maxParallelTools,
        signal: run.controller.signal,
        toolContext: { userId: session.userId, sessionId: session.id },
        recorder: createRecorder(session),
        emit,
      });
    } catch (error) {
      log.error("run crashed", { sessionId: session.id, error });
      outcome = { status: "failed", error: "The run failed unexpectedly. Try again; if it keeps happening, tell an administrator." };
    }
    clearInterval(heartbeat);
    const final =
      outcome.status === "completed" || outcome.status === "max-iterations"
        ? { status: "SUCCESS" as const, statusReason: outcome.status === "max-iterations" ? "stopped at the iteration limit" : null }
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

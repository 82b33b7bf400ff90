import { randomUUID } from "node:crypto";
import type { TAgentOutcome, TCallDecision, TResumeTurn } from "@/lib/agent/agent-types";
import { runAgent } from "@/lib/agent/run-agent";
import { isRunStopped, RunStopped, STOP_REASONS } from "@/lib/agent/stop-reasons";
import { buildSystemPrompt } from "@/lib/agent/system-prompt";
import { decideToolCall } from "@/lib/approvals/policy";
import { runEnded, runPrepareStep, runSettingsFor, runTools } from "@/lib/capabilities/installed-capabilities";
import type { TRunSettings } from "@/lib/capabilities/tool-provider";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { Step } from "@/lib/db/generated/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { withDatabaseRetry } from "@/lib/db/retry";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { configuredProviders, providersForChoice, providersWithModel, retryPolicy } from "@/lib/providers/registry";
import type { TMessage, TProvider } from "@/lib/providers/types";
import { buildHistory } from "@/lib/sessions/model-history";
import { createSession, stepKey } from "@/lib/sessions/sessions";
import { decodeStep } from "@/lib/sessions/step-codecs";
import { listSteps, recordStep } from "@/lib/sessions/steps";
import { plainTitle } from "@/lib/sessions/titles";
import { userMessageContent, type TMessageAttachment } from "@/lib/sessions/user-content";
import type { TChildRunRequest, TChildRunResult, ToolRegistry } from "@/lib/tools/registry";
import { claimIdleSession, claimPausedForDecision, claimPausedForMessage, runningRunsOf, type TClaim } from "./claim-session";
import { runEventBus } from "./event-bus";
import { recallHistory, rememberHistory } from "./history-cache";
import { createLocalRun, endLocalRun, followLocalRun, localRunCount, localRunOf, publishLocal, type TLocalRun, watchLocalRun } from "./local-runs";
import { ensureHeartbeat, markInterruptedIfStale } from "./run-lease";
import { createRunRecorder, type TRunRecorder } from "./run-recorder";
import type { TRunEvent, TRunInput, TRunLimits, TSessionRef, TStartRunOptions } from "./run-types";

/**
 * The one entry point that starts a run, whatever triggered it. It claims the session (one
 * statement, see claim-session.ts), then executes the agent loop detached from the caller: an HTTP
 * response, a job or a parent agent only follows the run's events (follow-run.ts), so a closed tab
 * never stops it. Stop, the run's time limit, a parent's stop or a lost lease abort it.
 */
const log = createLogger("run");

export const RESUME_INSTRUCTION =
  "[The previous run was interrupted by a server restart. Continue the task from the conversation above. Tool calls marked as interrupted did not complete and were not re-run: check their effect before repeating them.]";

export const SESSION_BUSY = "This session is already running. Wait for it to finish or press Stop.";

/** Sub-agents may start sub-agents, but not without end. */
const MAX_RUN_DEPTH = 2;

const NO_PROVIDER =
  "No model provider is configured. An administrator needs to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (see the README).";

export function requireProviders(providers: TProvider[] = configuredProviders()): TProvider[] {
  if (!providers.length) throw new AppError("unavailable", NO_PROVIDER);
  return providers;
}

type TClaimed = TClaim & { deniedForMessage?: string };

function titleFrom(text: string): string | null {
  return plainTitle(text) || null;
}

/** The USER_INPUT step of a message: its text and, when files were attached, those. */
function userStepInput(input: Extract<TRunInput, { kind: "message" | "prompt" }>): { text: string; attachments?: TMessageAttachment[] } {
  return input.kind === "message" && input.attachments?.length ? { text: input.text, attachments: input.attachments } : { text: input.text };
}

/** Claims the session for this input; when the claim fails, finds out why and says so. */
async function claimForInput(session: TSessionRef, input: TRunInput, runId: string, retry = true, parentStepId?: string): Promise<TClaimed> {
  let claimed: TClaimed | undefined;
  if (input.kind === "approval") {
    claimed = await claimPausedForDecision({
      session,
      runId,
      approvalId: input.approvalId,
      status: input.expired ? "EXPIRED" : input.decision === "approve" ? "APPROVED" : "DENIED",
      reason: input.reason ?? null,
      alwaysAllowTool: input.alwaysAllowTool ?? null,
      alwaysAllowOrigin: input.alwaysAllowOrigin ?? null,
    });
    if (!claimed) throw new AppError("conflict", "This action was already decided, or the session is no longer waiting for it.");
    return claimed;
  }
  const maxRunsPerUser = getBehaviourConfig().runs.maxConcurrentPerUser;
  claimed = await claimIdleSession({
    session,
    runId,
    title: input.kind === "message" ? titleFrom(input.text) : null,
    step:
      input.kind === "resume"
        ? { type: "SYSTEM_NOTE", name: "resume", input: { text: RESUME_INSTRUCTION, forModel: true, tone: "info" } }
        : { type: "USER_INPUT", name: input.kind === "prompt" ? "prompt" : "user", input: userStepInput(input), parentStepId },
    withModelStep: input.kind !== "resume",
    maxRunsPerUser,
  });
  if (claimed) return claimed;
  const current = await db().chatSession.findFirst({ where: { id: session.id, userId: session.userId } });
  if (!current) throw new AppError("not_found", "No such session.");
  if (current.status !== "RUNNING" && current.status !== "PAUSED") {
    // The session was free, so the owner's limit of runs at once refused it.
    const running = await runningRunsOf(session.userId);
    throw new AppError("rate_limited", `You have ${running} runs going at once, the most allowed (runs.maxConcurrentPerUser = ${maxRunsPerUser}). Wait for one to finish, then try again.`, {
      headers: { "retry-after": "5" },
    });
  }
  if (current.status === "PAUSED" && input.kind === "message") {
    const reason = "The user did not decide on this call and sent a new message instead.";
    const paused = await claimPausedForMessage({ session, runId, input: userStepInput(input), reason });
    if (paused) return { ...paused, deniedForMessage: paused.approvalId };
  }
  if (current.status === "PAUSED") throw new AppError("conflict", "This session is waiting for your approval. Approve or deny the pending action first.");
  if (retry && current.status === "RUNNING" && (await markInterruptedIfStale(current)).status !== "RUNNING") return claimForInput(session, input, runId, false, parentStepId);
  throw new AppError("conflict", SESSION_BUSY);
}

/** The turn an approval (or a message instead of one) interrupted, rebuilt from its steps. */
async function resumeTurnFor(approvalId: string, decision: TResumeTurn["decided"]["decision"], reason: string | undefined, steps: Step[]): Promise<TResumeTurn> {
  const approval = await db().approval.findUniqueOrThrow({ where: { id: approvalId } });
  const toolStep = steps.find((step) => step.id === approval.stepId);
  const modelStep = steps.find((step) => step.id === toolStep?.parentStepId);
  const decodedModel = modelStep ? decodeStep(modelStep) : undefined;
  if (!toolStep || !modelStep || decodedModel?.kind !== "model" || !decodedModel.output) {
    throw new AppError("conflict", "The step this approval belongs to no longer exists (was the session rolled back?).");
  }
  const finishedCallIds = new Set(
    steps
      .map(decodeStep)
      .flatMap((entry) => (entry.kind === "tool" && entry.step.parentStepId === modelStep.id && entry.step.status !== "RUNNING" ? [entry.input.toolCallId] : [])),
  );
  return {
    modelStep: { id: modelStep.id, key: stepKey(modelStep.seq) },
    toolCalls: decodedModel.output.toolCalls,
    finishedCallIds,
    decided: { callId: approval.toolCallId, step: { id: toolStep.id, key: stepKey(toolStep.seq) }, decision, reason },
  };
}

function authorizer(config: TBehaviourConfig, claim: Pick<TClaim, "allowedTools" | "allowedOrigins">, mode: "ask" | "deny", trigger: string) {
  return (call: { name: string; arguments: unknown }, tool: Parameters<typeof decideToolCall>[0]["tool"]): TCallDecision => {
    const decision = decideToolCall({ tool, input: call.arguments, config, allowedTools: claim.allowedTools, allowedOrigins: claim.allowedOrigins });
    if (decision === "ask" && mode === "deny") {
      return { deny: `Not run: ${call.name} needs a person's approval, and this ${trigger} run has nobody to ask. Report what you would have done instead.` };
    }
    return decision;
  };
}

/**
 * A run's limits with the session's run profile applied (a worker's role and folders, a team
 * member's): what the caller asked for wins, except that tool lists only ever narrow.
 */
function limitsWith(limits: TRunLimits | undefined, settings: TRunSettings | undefined): TRunLimits {
  if (!settings) return limits ?? {};
  const allowedTools = settings.allowedTools && limits?.allowedTools ? settings.allowedTools.filter((name) => limits.allowedTools!.includes(name)) : (settings.allowedTools ?? limits?.allowedTools);
  return {
    ...limits,
    maxIterations: limits?.maxIterations ?? settings.maxIterations,
    timeoutMs: limits?.timeoutMs ?? settings.timeoutMs,
    approvals: limits?.approvals ?? settings.approvals,
    allowedTools,
    instructions: [settings.instructions, limits?.instructions].filter((text) => text?.trim()).join("\n\n") || undefined,
  };
}

function finalState(outcome: TAgentOutcome, limits: TStartRunOptions["limits"]) {
  switch (outcome.status) {
    case "completed":
      return { status: "SUCCESS" as const, statusReason: null };
    case "max-iterations":
      return { status: "SUCCESS" as const, statusReason: "stopped at the iteration limit" };
    case "paused":
      return { status: "PAUSED" as const, statusReason: "waiting for approval" };
    case "stopped":
      return { status: "FAILED" as const, statusReason: outcome.reason === "timeout" && limits?.timeoutMs ? `stopped at the time limit (${Math.round(limits.timeoutMs / 1000)} s)` : STOP_REASONS[outcome.reason] };
    case "failed":
      return { status: "FAILED" as const, statusReason: outcome.error };
  }
}

const STOP_NOTES: Record<string, string> = {
  user: "Stopped by the user.",
  timeout: "Stopped: the run reached its time limit.",
  shutdown: "Stopped: the server is shutting down. Press Resume to continue.",
};

/**
 * Starts a run and returns at once with its id; follow it with followRun / followSession, wait
 * for it with waitForRun. Refused (before anything is written) when no provider is configured or
 * the session cannot be claimed.
 */
export type TStartedRun = {
  runId: string;
  sessionId: string;
  /** Follows this run's events from its first one, even if it has already ended meanwhile. */
  follow: (signal?: AbortSignal) => AsyncIterable<TRunEvent>;
  /** The same events pushed in batches (local-runs.ts, watchLocalRun); returns a function that stops. */
  watch: (onEvents: (events: TRunEvent[], done: boolean) => void, signal?: AbortSignal) => () => void;
};

export async function startRun(options: TStartRunOptions): Promise<TStartedRun> {
  const { session, input } = options;
  const providers = requireProviders(options.providers ?? configuredProviders());
  if ((options.depth ?? 0) > MAX_RUN_DEPTH) throw new AppError("conflict", `Sub-agents may nest at most ${MAX_RUN_DEPTH} levels deep.`);
  const { maxConcurrent } = getBehaviourConfig().runs;
  // Refused before anything is written: a run either starts and finishes, or never starts.
  if (localRunCount() >= maxConcurrent) {
    throw new AppError("unavailable", `The server is running as many conversations as it can (${maxConcurrent}). Try again in a few seconds.`, { headers: { "retry-after": "5" } });
  }
  const runId = randomUUID();
  const claim = await claimForInput(session, input, runId, true, options.parentStepId);

  const controller = new AbortController();
  const run = createLocalRun({ id: runId, sessionId: session.id, userId: session.userId, controller });
  const bus = runEventBus();
  bus.attach(run);
  publishLocal(run, { type: "run-start", runId, sessionId: session.id, userStep: input.kind === "message" && claim.firstStep ? stepKey(claim.firstStep.seq) : undefined });
  ensureHeartbeat();
  let timeout: NodeJS.Timeout | undefined;
  let limits = options.limits;
  const onParentAbort = () => controller.abort(isRunStopped(options.parentSignal?.reason) ? options.parentSignal.reason : new RunStopped("user"));
  if (options.parentSignal?.aborted) onParentAbort();
  else options.parentSignal?.addEventListener("abort", onParentAbort, { once: true });
  const recorder = createRunRecorder(session, { prewrittenModelStep: claim.modelStep });

  run.finished = (async (): Promise<TAgentOutcome> => {
    let outcome: TAgentOutcome;
    try {
      // A worker's or team's session carries a run profile; ordinary chats skip this entirely.
      const settings =
        claim.runProfile === null || claim.runProfile === undefined
          ? undefined
          : await runSettingsFor({ userId: session.userId, sessionId: session.id, profile: claim.runProfile, input: { kind: input.kind, text: "text" in input ? input.text : undefined } });
      limits = limitsWith(options.limits, settings);
      if (limits.timeoutMs) {
        timeout = setTimeout(() => controller.abort(new RunStopped("timeout")), limits.timeoutMs);
        timeout.unref?.();
      }
      // A profile's model (a worker's) wins; otherwise the owner's model choice for this chat goes first,
      // with the rest of the chain as the fallback.
      const chain = settings?.model && !options.providers ? providersWithModel(settings.model) : providersForChoice(providers, claim.model);
      outcome = await execute({ ...options, limits }, run, claim, chain, recorder, settings);
    } catch (error) {
      log.error("run crashed", { sessionId: session.id, error });
      outcome = { status: "failed", error: error instanceof AppError ? error.message : "The run failed unexpectedly. Try again; if it keeps happening, tell an administrator." };
    }
    run.finishing = true;
    clearTimeout(timeout);
    options.parentSignal?.removeEventListener("abort", onParentAbort);
    // Another process took this session over: its state is no longer ours to write.
    if (!(outcome.status === "stopped" && outcome.reason === "leaseLost")) {
      try {
        await recorder.closeUnusedModelStep(outcome.status === "stopped" ? STOP_REASONS[outcome.reason] : outcome.status === "failed" ? outcome.error : "not called");
        const note = outcome.status === "stopped" ? STOP_NOTES[outcome.reason] : undefined;
        if (note) await recordStep({ sessionId: session.id, userId: session.userId, type: "SYSTEM_NOTE", name: "stop", status: "COMPLETED", input: { text: note, tone: "warning" } });
        const { status, statusReason } = finalState(outcome, limits);
        await withDatabaseRetry("record the end of a run", () =>
          rawQuery(sql`
            UPDATE "chat_sessions" SET "status" = ${status}::"ChatSessionStatus", "statusReason" = ${statusReason}::text, "runnerId" = NULL,
                   "leaseExpiresAt" = NULL, "stopRequestedAt" = NULL, "updatedAt" = ${new Date()}::timestamp
            WHERE "id" = ${session.id}::uuid AND "runId" = ${runId}::uuid`),
        );
      } catch (error) {
        log.error("could not record the end of a run", { sessionId: session.id, error });
      }
      // Follow-up work (memory extraction) runs after the end is recorded, never before a first token.
      runEnded({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile, sessionTrigger: claim.sessionTrigger, status: outcome.status }).catch((error: unknown) =>
        log.warn("capabilities could not follow up a run's end", { sessionId: session.id, error }),
      );
    }
    publishLocal(run, { type: "run-end", outcome });
    endLocalRun(run);
    return outcome;
  })();
  return { runId, sessionId: session.id, follow: (signal) => followLocalRun(run, signal), watch: (onEvents, signal) => watchLocalRun(run, onEvents, signal) };
}

/**
 * The conversation so far, as the model will see it. A new session's is just the message; after
 * a run that completed here, the remembered transcript plus the message; otherwise it is read from
 * the steps.
 */
async function historyFor(session: TSessionRef, input: TRunInput, claim: TClaimed, keepSteps?: TRunSettings["keepSteps"]): Promise<TMessage[]> {
  if (keepSteps) return buildHistory(keepSteps(await listSteps({ sessionId: session.id, userId: session.userId })));
  if ((input.kind === "message" || input.kind === "prompt") && !claim.deniedForMessage && claim.previousStepId !== undefined) {
    const message: TMessage = { role: "user", content: userMessageContent(input.text, input.kind === "message" ? input.attachments : undefined) };
    if (claim.previousStepId === null) return [message];
    const remembered = recallHistory(session.id, { userId: session.userId, previousStepId: claim.previousStepId });
    if (remembered) return [...remembered, message];
  }
  return buildHistory(await listSteps({ sessionId: session.id, userId: session.userId }));
}

async function execute(options: TStartRunOptions, run: TLocalRun, claim: TClaimed, providers: TProvider[], recorder: TRunRecorder, settings?: TRunSettings): Promise<TAgentOutcome> {
  const { session, input } = options;
  const config = getBehaviourConfig();
  const limits = options.limits ?? {};
  if (settings?.note) {
    const { name, text, data } = settings.note;
    await recordStep({ sessionId: session.id, userId: session.userId, type: "SYSTEM_NOTE", name, status: "COMPLETED", input: { text, tone: "info", ...data } });
    publishLocal(run, { type: "notice", text, tone: "info" });
  }
  let tools: ToolRegistry = options.tools ?? runTools({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile }, config);
  if (limits.allowedTools) tools = tools.only(limits.allowedTools);
  if (claim.deniedForMessage) {
    await closeTurnForMessage(run, session, await resumeTurnFor(claim.deniedForMessage, "deny", undefined, await listSteps({ sessionId: session.id, userId: session.userId })));
  }
  let history: TMessage[];
  let resume: TResumeTurn | undefined;
  if (input.kind === "approval") {
    const steps = await listSteps({ sessionId: session.id, userId: session.userId });
    const turn = await resumeTurnFor(input.approvalId, input.decision, input.reason, steps);
    const openCallIds = new Set(turn.toolCalls.filter((call) => !turn.finishedCallIds.has(call.id)).map((call) => call.id));
    history = buildHistory(settings?.keepSteps ? settings.keepSteps(steps) : steps, { openCallIds });
    resume = turn;
  } else {
    history = await historyFor(session, input, claim, settings?.keepSteps);
  }
  const instructions = [config.agent.instructions, limits.instructions].filter((text) => text?.trim()).join("\n\n");
  const trigger = options.trigger ?? "web";
  const depth = options.depth ?? settings?.depth ?? 0;
  const approvals = limits.approvals ?? "ask";
  return runAgent({
    providers,
    retryPolicy: retryPolicy(config),
    tools,
    system: buildSystemPrompt({ tools, instructions }),
    history,
    maxIterations: limits.maxIterations ?? config.agent.maxIterations,
    iterationLimitNotice: limits.iterationLimitNotice,
    maxParallelTools: config.agent.maxParallelTools,
    signal: run.controller.signal,
    toolContext: {
      userId: session.userId,
      sessionId: session.id,
      allowedOrigins: claim.allowedOrigins,
      runId: run.id,
      depth,
      approvals,
      workspace: settings?.workspace,
      startChildRun:
        depth < MAX_RUN_DEPTH
          ? (request) => runChild({ parent: session, allowedOrigins: claim.allowedOrigins, depth, signal: run.controller.signal, providers: options.providers, tools, request })
          : undefined,
    },
    recorder,
    subscribers: [(event) => publishLocal(run, event), ...(options.subscribers ?? [])],
    prepareStep: runPrepareStep({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile, sessionTrigger: claim.sessionTrigger }, options.prepareStep, config),
    onTranscript: (messages) => {
      const lastStepId = recorder.lastStepId();
      if (lastStepId) rememberHistory(session.id, { userId: session.userId, lastStepId, messages });
    },
    authorize: authorizer(config, claim, approvals, trigger),
    resume,
  });
}

/**
 * A message sent instead of a decision: the waiting call and the rest of its turn are answered
 * without running, before the message's history is built, so the model sees the turn closed and
 * then the message.
 */
async function closeTurnForMessage(run: TLocalRun, session: TSessionRef, turn: TResumeTurn) {
  const recorder = createRunRecorder(session);
  const open = turn.toolCalls.filter((call) => !turn.finishedCallIds.has(call.id));
  for (const call of open) {
    const step = call.id === turn.decided.callId ? turn.decided.step : await recorder.toolCallStarted(call, turn.modelStep);
    const text =
      call.id === turn.decided.callId
        ? "Denied by the user: they sent a new message instead of approving this call (it follows). Do not retry it unless they ask."
        : "Not run: the user sent a new message instead of letting this turn finish (it follows).";
    const content = [{ type: "text" as const, text }];
    await recorder.toolCallFinished(step, { content, isError: true, durationMs: 0 });
    // The call is announced before its end, so a follower that never saw the paused run knows it.
    publishLocal(run, { type: "tool-start", stepId: step.id, stepKey: step.key, call });
    publishLocal(run, { type: "tool-end", stepId: step.id, stepKey: step.key, callId: call.id, content, isError: true, durationMs: 0 });
  }
}

/** A child run in a new session (trigger "agent") that hangs under the parent, run to its end. */
async function runChild(options: {
  parent: TSessionRef;
  allowedOrigins: readonly string[];
  depth: number;
  signal: AbortSignal;
  providers?: TProvider[];
  tools: ToolRegistry;
  request: TChildRunRequest;
}): Promise<TChildRunResult> {
  const { parent, request } = options;
  const child = await createSession({
    userId: parent.userId,
    title: request.title ?? titleFrom(request.task) ?? "Sub-agent task",
    trigger: "agent",
    parentSessionId: parent.id,
    allowedOrigins: options.allowedOrigins,
  });
  await startRun({
    session: { id: child.id, userId: parent.userId },
    input: { kind: "prompt", text: request.task },
    trigger: "agent",
    depth: options.depth + 1,
    parentSignal: options.signal,
    providers: options.providers,
    tools: request.allowedTools ? options.tools.only(request.allowedTools) : options.tools,
    limits: { maxIterations: request.maxIterations, timeoutMs: request.timeoutMs, instructions: request.instructions },
  });
  const outcome = (await waitForRun(child.id)) ?? { status: "failed", error: "The sub-agent's run could not be followed." };
  switch (outcome.status) {
    case "completed":
    case "max-iterations":
      return { sessionId: child.id, status: outcome.status, text: outcome.text };
    case "paused":
      return { sessionId: child.id, status: "paused", text: "", error: "The sub-agent is waiting for the owner's approval." };
    case "stopped":
      return { sessionId: child.id, status: "stopped", text: "", error: STOP_REASONS[outcome.reason] };
    case "failed":
      return { sessionId: child.id, status: "failed", text: "", error: outcome.error };
  }
}

/** Waits until this process's run of the session (if any) has finished (tests, children, shutdown). */
export async function waitForRun(sessionId: string): Promise<TAgentOutcome | undefined> {
  return localRunOf(sessionId)?.finished;
}

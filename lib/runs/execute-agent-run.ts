import type { TAgentOutcome, TResumeTurn } from "@/lib/agent/agent-types";
import { runAgent } from "@/lib/agent/run-agent";
import { buildSystemPrompt } from "@/lib/agent/system-prompt";
import { runPrepareStep, runTools } from "@/lib/capabilities/installed-capabilities";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import type { TMessage } from "@/lib/providers/types";
import { retryPolicy } from "@/lib/providers/registry";
import { listSteps, recordStep } from "@/lib/sessions/steps";
import type { TChildRunRequest, TChildRunResult, ToolRegistry } from "@/lib/tools/registry";
import type { TClaimed } from "./claim-for-input";
import { rememberHistory } from "./history-cache";
import { publishLocal, type TLocalRun } from "./local-runs";
import { createRunRecorder, type TRunRecorder } from "./run-recorder";
import { decisionHistory, historyFor, resumeTurnFor } from "./run-history";
import { authorizer, type TResolvedRun } from "./run-settings";
import type { TSessionRef, TStartRunOptions } from "./run-types";

/**
 * The body of a run once its session is claimed and its settings resolved: the tools, the history
 * and the agent loop, wired to the run's recorder, event log and approval policy.
 */
export async function executeAgentRun(options: {
  start: TStartRunOptions;
  run: TLocalRun;
  claim: TClaimed;
  resolved: TResolvedRun;
  recorder: TRunRecorder;
  /** Starts a sub-agent's run under this one; undefined at the deepest level allowed. */
  startChildRun?: (request: TChildRunRequest, context: { tools: ToolRegistry; depth: number; callerStepId?: string }) => Promise<TChildRunResult>;
}): Promise<TAgentOutcome> {
  const { start, run, claim, recorder } = options;
  const { session, input } = start;
  const { settings, limits, providers } = options.resolved;
  const config = getBehaviourConfig();
  if (settings?.note) {
    const { name, text, data } = settings.note;
    await recordStep({ sessionId: session.id, userId: session.userId, type: "SYSTEM_NOTE", name, status: "COMPLETED", input: { text, tone: "info", ...data } });
    publishLocal(run, { type: "notice", text, tone: "info" });
  }
  let tools: ToolRegistry = start.tools ?? runTools({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile }, config);
  if (limits.allowedTools) tools = tools.only(limits.allowedTools);
  if (run.observed) run.observed.toolNames = new Set(tools.names());
  if (claim.deniedForMessage) {
    await closeTurnForMessage(run, session, await resumeTurnFor(claim.deniedForMessage, "deny", undefined, await listSteps({ sessionId: session.id, userId: session.userId })));
  }
  let history: TMessage[];
  let resume: TResumeTurn | undefined;
  if (input.kind === "approval") ({ history, resume } = await decisionHistory(session, input, settings?.keepSteps));
  else history = await historyFor(session, input, claim, settings?.keepSteps);
  const instructions = [config.agent.instructions, limits.instructions].filter((text) => text?.trim()).join("\n\n");
  const trigger = start.trigger ?? "web";
  const depth = start.depth ?? settings?.depth ?? 0;
  const approvals = limits.approvals ?? "ask";
  const startChildRun = options.startChildRun;
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
      startChildRun: startChildRun ? (request, caller) => startChildRun(request, { tools, depth, callerStepId: caller?.stepId }) : undefined,
    },
    recorder,
    subscribers: [(event) => publishLocal(run, event), ...(start.subscribers ?? [])],
    prepareStep: runPrepareStep({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile, sessionTrigger: claim.sessionTrigger }, start.prepareStep, config),
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

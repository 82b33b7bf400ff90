import { z } from "zod";
import { fitToContextWindow } from "./context-window";
import { streamWithFallback, type TRetryPolicy } from "@/lib/providers/provider-chain";
import { textOf, type TContentPart, type TMessage, type TProvider, type TToolCall, type TUsage } from "@/lib/providers/types";
import type { TPolicyDecision } from "@/lib/approvals/policy";
import { riskOfCall, type ToolRegistry, type TTool, type TToolContext, type TToolPreview } from "@/lib/tools/registry";

/**
 * The agent loop, the same for every kind of run: call the model, run the tools it asks for, feed
 * the observations back, until it answers in text or `maxIterations` model calls have been made.
 * Nothing a tool or the model does can crash the loop: unknown tools, invalid arguments and tool
 * errors become observations the model can react to. Each step is recorded before its side effect
 * runs and completed after (the recorder persists it), so a crash never loses a completed step.
 */
export type TAgentEvent =
  | { type: "model-start"; stepId: string; stepKey: string; iteration: number }
  | { type: "attempt"; provider: string; model: string; attempt: number }
  | { type: "attempt-failed"; provider: string; model: string; error: string; willRetry: boolean }
  | { type: "text-delta"; text: string }
  | { type: "text-discard" }
  | { type: "model-end"; stepId: string; stepKey: string; provider: string; model: string; usage: TUsage }
  | { type: "tool-start"; stepId: string; stepKey: string; call: TToolCall }
  | { type: "tool-end"; stepId: string; stepKey: string; callId: string; output: string; content: TContentPart[]; isError: boolean; durationMs: number }
  | { type: "notice"; text: string }
  | { type: "approval-request"; approvalId: string; stepKey: string; call: TToolCall; risk: string; preview: TToolPreview; expiresAt: string };

export type TAgentOutcome =
  | { status: "completed"; text: string }
  | { status: "max-iterations"; text: string }
  | { status: "aborted" }
  | { status: "paused"; approvalId: string }
  | { status: "failed"; error: string };

/** A recorded step: its row id and its per-session key (s0001). */
export type TStepHandle = { id: string; key: string };

/** Persistence hooks; lib/sessions implements them with database rows. */
export type TAgentRecorder = {
  modelCallStarted(info: { iteration: number }): Promise<TStepHandle>;
  modelCallFinished(step: TStepHandle, result: { text: string; toolCalls: TToolCall[]; usage: TUsage; provider: string; model: string }): Promise<void>;
  /** `partialText`: what had streamed before the failure or stop, kept for the person reading. */
  modelCallFailed(step: TStepHandle, error: string, partialText?: string): Promise<void>;
  toolCallStarted(call: TToolCall, parent: TStepHandle): Promise<TStepHandle>;
  toolCallFinished(step: TStepHandle, result: { content: TContentPart[]; isError: boolean; durationMs: number }): Promise<void>;
  note(text: string): Promise<void>;
  /** Records a pending approval for a tool call whose step is already written (RUNNING). */
  approvalRequested(call: TToolCall, step: TStepHandle, details: { risk: string; preview: TToolPreview }): Promise<{ approvalId: string; expiresAt: Date }>;
};

/**
 * Continuing a turn whose tool calls were interrupted by an approval: the call that waited gets the
 * owner's decision, and the calls after it go through the policy as usual.
 */
export type TResumeTurn = {
  modelStep: TStepHandle;
  toolCalls: TToolCall[];
  /** Calls of that turn already finished before the pause. */
  finishedCallIds: Set<string>;
  decided: { callId: string; step: TStepHandle; decision: "approve" | "deny"; reason?: string };
};

export type TRunAgentOptions = {
  providers: TProvider[];
  retryPolicy: TRetryPolicy;
  tools: ToolRegistry;
  system: string;
  history: TMessage[];
  maxIterations: number;
  maxParallelTools: number;
  signal: AbortSignal;
  toolContext: Omit<TToolContext, "signal">;
  recorder: TAgentRecorder;
  emit: (event: TAgentEvent) => void;
  /** The approval policy; without one every call is allowed (tests of the bare loop). */
  authorize?: (call: TToolCall, tool: TTool | undefined) => TPolicyDecision;
  resume?: TResumeTurn;
};

const MAX_OBSERVATION_CHARACTERS = 50_000;

function observation(text: string, isError = true): { content: TContentPart[]; isError: boolean } {
  return { content: [{ type: "text", text }], isError };
}

function capContent(content: TContentPart[]): TContentPart[] {
  return content.map((part) =>
    part.type === "text" && part.text.length > MAX_OBSERVATION_CHARACTERS
      ? { type: "text", text: `${part.text.slice(0, MAX_OBSERVATION_CHARACTERS)}\n[output truncated: ${part.text.length - MAX_OBSERVATION_CHARACTERS} more characters]` }
      : part,
  );
}

async function executeTool(tools: ToolRegistry, call: TToolCall, context: TToolContext): Promise<{ content: TContentPart[]; isError: boolean }> {
  const tool: TTool | undefined = tools.get(call.name);
  if (!tool) return observation(`Unknown tool "${call.name}". Available tools: ${tools.names().join(", ") || "(none)"}.`);
  if (typeof call.arguments === "string") {
    return observation(`The arguments for ${call.name} are not valid JSON: ${call.arguments.slice(0, 500)}. Send a JSON object matching the tool's schema.`);
  }
  const parsed = tool.input.safeParse(call.arguments ?? {});
  if (!parsed.success) {
    return observation(`Invalid arguments for ${call.name}: ${z.prettifyError(parsed.error)}`);
  }
  try {
    const result = await tool.execute(parsed.data, context);
    return typeof result === "string" ? { content: [{ type: "text", text: result }], isError: false } : { content: capContent(result.content), isError: result.isError ?? false };
  } catch (error) {
    if (context.signal.aborted) throw error;
    return observation(`Tool ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function defaultPreview(call: TToolCall): TToolPreview {
  return { title: `Run ${call.name}`, detail: JSON.stringify(call.arguments ?? {}, null, 2).slice(0, 4_000) };
}

async function previewFor(tool: TTool | undefined, call: TToolCall, context: TToolContext): Promise<TToolPreview> {
  if (!tool?.preview) return defaultPreview(call);
  const parsed = tool.input.safeParse(call.arguments ?? {});
  if (!parsed.success) return defaultPreview(call);
  try {
    return await tool.preview(parsed.data, context);
  } catch {
    return defaultPreview(call);
  }
}

async function finishCall(
  options: TRunAgentOptions,
  messages: TMessage[],
  call: TToolCall,
  step: TStepHandle,
  run: () => Promise<{ content: TContentPart[]; isError: boolean }>,
) {
  const started = performance.now();
  let result: { content: TContentPart[]; isError: boolean };
  try {
    result = await run();
  } catch (error) {
    result = observation(options.signal.aborted ? "Stopped by the user before the tool finished." : `Tool ${call.name} failed: ${String(error)}`);
  }
  const durationMs = Math.round(performance.now() - started);
  await options.recorder.toolCallFinished(step, { ...result, durationMs });
  options.emit({ type: "tool-end", stepId: step.id, stepKey: step.key, callId: call.id, output: textOf(result.content), content: result.content, isError: result.isError, durationMs });
  return { call, result };
}

/**
 * Runs a turn's tool calls in order: allowed read-only calls in parallel batches, others one by
 * one; denied calls get an observation; the first call that needs approval pauses the run (its
 * step stays RUNNING and an approval row waits for the owner). Returns the pause, if any.
 */
async function runToolPhase(options: TRunAgentOptions, messages: TMessage[], modelStep: TStepHandle, calls: TToolCall[]): Promise<TAgentOutcome | undefined> {
  const context = { ...options.toolContext, signal: options.signal };
  const decisions = calls.map((call) => options.authorize?.(call, options.tools.get(call.name)) ?? "allow");
  let index = 0;
  while (index < calls.length) {
    if (options.signal.aborted) return { status: "aborted" };
    const call = calls[index]!;
    const decision = decisions[index]!;
    if (decision === "ask") {
      const step = await options.recorder.toolCallStarted(call, modelStep);
      const tool = options.tools.get(call.name);
      options.emit({ type: "tool-start", stepId: step.id, stepKey: step.key, call });
      const preview = await previewFor(tool, call, context);
      const risk = tool ? riskOfCall(tool, call.arguments) : "execute";
      const { approvalId, expiresAt } = await options.recorder.approvalRequested(call, step, { risk, preview });
      options.emit({ type: "approval-request", approvalId, stepKey: step.key, call, risk, preview, expiresAt: expiresAt.toISOString() });
      return { status: "paused", approvalId };
    }
    // Consecutive allowed read-only calls run together; anything else runs alone.
    const batch: number[] = [index];
    const readOnly = (at: number) => {
      const tool = options.tools.get(calls[at]!.name);
      return decisions[at] === "allow" && tool !== undefined && !tool.sequential && riskOfCall(tool, calls[at]!.arguments) === "read";
    };
    if (readOnly(index)) {
      while (batch.length < options.maxParallelTools && index + batch.length < calls.length && readOnly(index + batch.length)) batch.push(index + batch.length);
    }
    const results = await Promise.all(
      batch.map(async (at) => {
        const batchCall = calls[at]!;
        const step = await options.recorder.toolCallStarted(batchCall, modelStep);
        options.emit({ type: "tool-start", stepId: step.id, stepKey: step.key, call: batchCall });
        if (decisions[at] === "deny") {
          return finishCall(options, messages, batchCall, step, async () => observation(`Denied by policy: the administrator does not allow ${batchCall.name} here.`));
        }
        return finishCall(options, messages, batchCall, step, () => executeTool(options.tools, batchCall, context));
      }),
    );
    for (const { call: done, result } of results) {
      messages.push({ role: "tool", toolCallId: done.id, toolName: done.name, content: result.content, isError: result.isError });
    }
    index += batch.length;
  }
  if (options.signal.aborted) return { status: "aborted" };
  return undefined;
}

export async function runAgent(options: TRunAgentOptions): Promise<TAgentOutcome> {
  const { recorder, emit, signal } = options;
  const messages = [...options.history];
  const usedCallIds = new Set(messages.flatMap((message) => (message.role === "assistant" ? message.toolCalls.map((call) => call.id) : [])));
  const definitions = options.tools.definitions();
  if (!options.providers.length) return { status: "failed", error: "No model provider is configured." };
  const smallestWindow = options.providers.reduce((smallest, provider) => (provider.contextWindowTokens < smallest.contextWindowTokens ? provider : smallest));

  const summarize = async (transcript: string) => {
    let summary = "";
    for await (const event of streamWithFallback(
      options.providers,
      {
        system: "You write short, factual summaries of conversations for an assistant that has lost the original messages.",
        messages: [{ role: "user", content: [{ type: "text", text: `Summarise this conversation in at most 200 words, keeping names, numbers, decisions and open tasks:\n\n${transcript}` }] }],
        tools: [],
        maxOutputTokens: 600,
        signal,
      },
      options.retryPolicy,
    )) {
      if (event.type === "text-delta") summary += event.text;
      else if (event.type === "discard-text") summary = "";
    }
    return summary;
  };

  if (options.resume) {
    const { resume } = options;
    const context = { ...options.toolContext, signal };
    const pending = resume.toolCalls.find((call) => call.id === resume.decided.callId);
    if (pending) {
      emit({ type: "tool-start", stepId: resume.decided.step.id, stepKey: resume.decided.step.key, call: pending });
      const { result } = await finishCall(options, messages, pending, resume.decided.step, async () =>
        resume.decided.decision === "approve"
          ? executeTool(options.tools, pending, context)
          : observation(`Denied by the user${resume.decided.reason ? `: ${resume.decided.reason}` : "."} Do not retry this call; ask the user or take another approach.`),
      );
      messages.push({ role: "tool", toolCallId: pending.id, toolName: pending.name, content: result.content, isError: result.isError });
    }
    const remaining = resume.toolCalls.filter((call) => call.id !== resume.decided.callId && !resume.finishedCallIds.has(call.id));
    const paused = await runToolPhase(options, messages, resume.modelStep, remaining);
    if (paused) return paused;
  }

  for (let iteration = 1; iteration <= options.maxIterations; iteration++) {
    if (signal.aborted) return { status: "aborted" };
    const context = await fitToContextWindow({ provider: smallestWindow, system: options.system, tools: definitions, messages, summarize });
    const step = await recorder.modelCallStarted({ iteration });
    emit({ type: "model-start", stepId: step.id, stepKey: step.key, iteration });
    let text = "";
    let turn: { toolCalls: TToolCall[]; usage: TUsage; provider: string; model: string } | undefined;
    try {
      for await (const event of streamWithFallback(
        options.providers,
        { system: options.system, messages: context.messages, tools: definitions, signal },
        options.retryPolicy,
      )) {
        if (event.type === "text-delta") {
          text += event.text;
          emit(event);
        } else if (event.type === "discard-text") {
          text = "";
          emit({ type: "text-discard" });
        } else if (event.type === "attempt-start") {
          emit({ type: "attempt", provider: event.provider, model: event.model, attempt: event.attempt });
        } else if (event.type === "attempt-failed") {
          emit({ type: "attempt-failed", provider: event.provider, model: event.model, error: event.error, willRetry: event.willRetry });
        } else {
          turn = { toolCalls: event.toolCalls, usage: event.usage, provider: event.provider, model: event.model };
        }
      }
    } catch (error) {
      if (signal.aborted) {
        await recorder.modelCallFailed(step, "stopped by the user", text);
        return { status: "aborted" };
      }
      const message = error instanceof Error ? error.message : String(error);
      await recorder.modelCallFailed(step, message, text);
      return { status: "failed", error: message };
    }
    if (!turn) {
      await recorder.modelCallFailed(step, "the model stream ended without a result");
      return { status: "failed", error: "The model stream ended without a result." };
    }
    // Tool-call ids must be unique within the conversation (Anthropic rejects repeats, and some
    // OpenAI-compatible servers number calls from 1 every turn).
    const toolCalls = turn.toolCalls.map((call, index) => {
      const id = call.id && !usedCallIds.has(call.id) ? call.id : `${call.id || "call"}_${step.key}_${index}`;
      usedCallIds.add(id);
      return { ...call, id };
    });
    await recorder.modelCallFinished(step, { text, toolCalls, usage: turn.usage, provider: turn.provider, model: turn.model });
    emit({ type: "model-end", stepId: step.id, stepKey: step.key, provider: turn.provider, model: turn.model, usage: turn.usage });
    messages.push({ role: "assistant", text, toolCalls });
    if (!toolCalls.length) return { status: "completed", text };

    const paused = await runToolPhase(options, messages, step, toolCalls);
    if (paused) return paused;
  }
  const notice = `Stopped after ${options.maxIterations} model calls without a final answer (the agent.maxIterations limit). Send another message to let the agent continue.`;
  await recorder.note(notice);
  emit({ type: "notice", text: notice });
  return { status: "max-iterations", text: notice };
}

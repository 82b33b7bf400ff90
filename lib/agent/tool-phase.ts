import { z } from "zod";
import type { TContentPart, TMessage, TToolCall } from "@/lib/providers/types";
import { riskOfCall, type ToolRegistry, type TTool, type TToolContext, type TToolPreview } from "@/lib/tools/registry";
import type { TAgentEvent, TAgentOutcome, TCallDecision, TRunAgentOptions, TStepHandle } from "./agent-types";
import { stopReasonOf, STOP_REASONS } from "./stop-reasons";

/**
 * The tool half of a turn: the policy's decision per call, execution with errors turned into
 * observations, and the pause when a call needs the owner's approval.
 */
export type TToolOutcome = { content: TContentPart[]; isError: boolean };

/**
 * The longest observation the model gets from one tool call. Sandbox output is capped below this
 * (lib/sandbox) with its exit status first, so the status always survives the cut.
 */
export const MAX_OBSERVATION_CHARACTERS = 50_000;

export function observation(text: string, isError = true): TToolOutcome {
  return { content: [{ type: "text", text }], isError };
}

function capContent(content: TContentPart[]): TContentPart[] {
  return content.map((part) =>
    part.type === "text" && part.text.length > MAX_OBSERVATION_CHARACTERS
      ? { type: "text", text: `${part.text.slice(0, MAX_OBSERVATION_CHARACTERS)}\n[output truncated: ${part.text.length - MAX_OBSERVATION_CHARACTERS} more characters]` }
      : part,
  );
}

function riskContext(options: TRunAgentOptions) {
  return { allowedOrigins: options.toolContext.allowedOrigins ?? [] };
}

/** Fans an event out to every subscriber; one that throws must not end the run. */
export function emitTo(options: Pick<TRunAgentOptions, "subscribers">, event: TAgentEvent): void {
  for (const subscriber of options.subscribers) {
    try {
      subscriber(event);
    } catch {
      // A broken subscriber (a metrics hook, a closed channel) loses its own copy only.
    }
  }
}

/** The context one tool call runs with: its step, the run's signal, progress to its card. */
export function toolContextFor(options: TRunAgentOptions, step: TStepHandle | undefined, callId: string): TToolContext {
  const startChildRun = options.toolContext.startChildRun;
  return {
    ...options.toolContext,
    startChildRun: startChildRun && ((request) => startChildRun(request, step ? { stepId: step.id } : undefined)),
    allowedOrigins: options.toolContext.allowedOrigins ?? [],
    stepId: step?.id ?? "",
    signal: options.signal,
    progress: (progress) => {
      if (step) emitTo(options, { type: "tool-progress", stepId: step.id, callId, progress });
    },
  };
}

export async function executeTool(tools: ToolRegistry, call: TToolCall, context: TToolContext): Promise<TToolOutcome> {
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
    return typeof result === "string" ? { content: capContent([{ type: "text", text: result }]), isError: false } : { content: capContent(result.content), isError: result.isError ?? false };
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

/** Runs one call whose step is already written, records the result and tells subscribers. */
export async function finishCall(options: TRunAgentOptions, call: TToolCall, step: TStepHandle, run: () => Promise<TToolOutcome>) {
  const started = performance.now();
  let result: TToolOutcome;
  try {
    result = await run();
  } catch (error) {
    const stopped = stopReasonOf(options.signal);
    result = observation(stopped ? `The run was ${STOP_REASONS[stopped]} before the tool finished.` : `Tool ${call.name} failed: ${String(error)}`);
  }
  const durationMs = Math.round(performance.now() - started);
  await options.recorder.toolCallFinished(step, { ...result, durationMs });
  emitTo(options, { type: "tool-end", stepId: step.id, stepKey: step.key, callId: call.id, content: result.content, isError: result.isError, durationMs });
  return { call, result };
}

function deniedObservation(decision: TCallDecision, call: TToolCall): TToolOutcome {
  return observation(typeof decision === "object" ? decision.deny : `Denied by policy: the administrator does not allow ${call.name} here.`);
}

/**
 * Runs a turn's tool calls in order: allowed read-only calls in parallel batches, others one by
 * one; denied calls get an observation; the first call that needs approval pauses the run (its
 * step stays RUNNING and an approval row waits for the owner). Returns the pause, if any.
 */
export async function runToolPhase(options: TRunAgentOptions, messages: TMessage[], modelStep: TStepHandle, calls: TToolCall[]): Promise<TAgentOutcome | undefined> {
  const decisions = calls.map((call) => options.authorize?.(call, options.tools.get(call.name)) ?? "allow");
  let index = 0;
  while (index < calls.length) {
    const stopped = stopReasonOf(options.signal);
    if (stopped) return { status: "stopped", reason: stopped };
    const call = calls[index]!;
    const decision = decisions[index]!;
    if (decision === "ask") {
      const step = await options.recorder.toolCallStarted(call, modelStep);
      const tool = options.tools.get(call.name);
      emitTo(options, { type: "tool-start", stepId: step.id, stepKey: step.key, call });
      const preview = await previewFor(tool, call, toolContextFor(options, step, call.id));
      if (preview.refused) {
        // Asking a person to approve what can never be allowed would teach them to click Approve.
        const refused = await finishCall(options, call, step, async () => observation(preview.refused!));
        messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: refused.result.content, isError: refused.result.isError });
        index += 1;
        continue;
      }
      const risk = tool ? riskOfCall(tool, call.arguments, riskContext(options)) : "execute";
      const { approvalId, expiresAt } = await options.recorder.approvalRequested(call, step, { risk, preview });
      emitTo(options, { type: "approval-request", approvalId, stepKey: step.key, call, risk, preview, expiresAt: expiresAt.toISOString() });
      return { status: "paused", approvalId };
    }
    // Consecutive allowed read-only calls run together; anything else runs alone.
    const batch: number[] = [index];
    const readOnly = (at: number) => {
      const tool = options.tools.get(calls[at]!.name);
      return decisions[at] === "allow" && tool !== undefined && !tool.sequential && riskOfCall(tool, calls[at]!.arguments, riskContext(options)) === "read";
    };
    if (readOnly(index)) {
      while (batch.length < options.maxParallelTools && index + batch.length < calls.length && readOnly(index + batch.length)) batch.push(index + batch.length);
    }
    const results = await Promise.all(
      batch.map(async (at) => {
        const batchCall = calls[at]!;
        const batchDecision = decisions[at]!;
        const step = await options.recorder.toolCallStarted(batchCall, modelStep);
        emitTo(options, { type: "tool-start", stepId: step.id, stepKey: step.key, call: batchCall });
        if (batchDecision !== "allow") return finishCall(options, batchCall, step, async () => deniedObservation(batchDecision, batchCall));
        return finishCall(options, batchCall, step, () => executeTool(options.tools, batchCall, toolContextFor(options, step, batchCall.id)));
      }),
    );
    for (const { call: done, result } of results) {
      messages.push({ role: "tool", toolCallId: done.id, toolName: done.name, content: result.content, isError: result.isError });
    }
    index += batch.length;
  }
  const stopped = stopReasonOf(options.signal);
  if (stopped) return { status: "stopped", reason: stopped };
  return undefined;
}

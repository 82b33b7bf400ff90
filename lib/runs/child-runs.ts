import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { STOP_REASONS } from "@/lib/agent/stop-reasons";
import type { TProvider } from "@/lib/providers/types";
import { createSession } from "@/lib/sessions/sessions";
import type { TChildRunRequest, TChildRunResult, ToolRegistry } from "@/lib/tools/registry";
import { titleFrom } from "./claim-for-input";
import type { TSessionRef, TStartRunOptions } from "./run-types";

/**
 * A child run (a sub-agent's task): a new session (trigger "agent") that hangs under the parent,
 * started through the same run core and run to its end. The parent's stop stops it.
 */
export async function runChild(options: {
  parent: TSessionRef;
  allowedOrigins: readonly string[];
  depth: number;
  signal: AbortSignal;
  providers?: TProvider[];
  tools: ToolRegistry;
  request: TChildRunRequest;
  /** The delegating tool call's step (traces hang the child's run under it). */
  callerStepId?: string;
  /** The run core's start and wait, passed in so this file does not import start-run.ts back. */
  startRun: (options: TStartRunOptions) => Promise<unknown>;
  waitForRun: (sessionId: string) => Promise<TAgentOutcome | undefined>;
}): Promise<TChildRunResult> {
  const { parent, request } = options;
  const child = await createSession({
    userId: parent.userId,
    title: request.title ?? titleFrom(request.task) ?? "Sub-agent task",
    trigger: "agent",
    parentSessionId: parent.id,
    allowedOrigins: options.allowedOrigins,
  });
  await options.startRun({
    session: { id: child.id, userId: parent.userId },
    input: { kind: "prompt", text: request.task },
    trigger: "agent",
    depth: options.depth + 1,
    parentSignal: options.signal,
    callerStepId: options.callerStepId,
    providers: options.providers,
    tools: request.allowedTools ? options.tools.only(request.allowedTools) : options.tools,
    limits: { maxIterations: request.maxIterations, timeoutMs: request.timeoutMs, instructions: request.instructions },
  });
  const outcome = (await options.waitForRun(child.id)) ?? { status: "failed", error: "The sub-agent's run could not be followed." };
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

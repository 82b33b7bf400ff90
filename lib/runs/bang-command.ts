import { getBehaviourConfig } from "@/lib/config/behaviour";
import type { ChatSession } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { formatCommandResult } from "@/lib/sandbox/types";
import { stepKey } from "@/lib/sessions/sessions";
import { asJson } from "@/lib/sessions/step-codecs";
import { finishStep, recordStep } from "@/lib/sessions/steps";
import type { TMessageResult } from "./message-result";

/**
 * `!command` in chat: the owner runs a command in their own sandbox without the model (no approval:
 * the person typed it). It is recorded as a tool step with no parent model call, and the model sees
 * it in later turns as something the user did.
 */
export async function runBangCommand(options: { session: ChatSession; command: string }): Promise<TMessageResult> {
  const { session, command } = options;
  if (!command) throw new AppError("bad_request", "Type a command after the !, e.g. !ls -la");
  const runtime = sandboxRuntime();
  if (!runtime.sandbox) throw new AppError("unavailable", runtime.reason ?? "No sandbox is available, so commands cannot run.");
  if (session.status === "RUNNING" || session.status === "PAUSED") throw new AppError("conflict", "Wait until the current run has finished (or stop it) before running a command.");
  const toolCallId = `bang_${Date.now().toString(36)}`;
  const step = await recordStep({
    sessionId: session.id,
    userId: session.userId,
    type: "TOOL_CALL",
    name: "shell",
    input: asJson({ toolCallId, name: "shell", arguments: { command }, bang: true }),
  });
  const result = await runtime.sandbox.run({ userId: session.userId, sessionId: session.id, command, timeoutMs: getBehaviourConfig().sandbox.timeoutSeconds * 1000 });
  const text = formatCommandResult(result);
  const content = [{ type: "text" as const, text }];
  const isError = result.exitCode !== 0;
  await finishStep(step.id, {
    status: isError ? "FAILED" : "COMPLETED",
    output: asJson({ content, isError, durationMs: result.durationMs }),
    error: isError ? `exit code ${result.exitCode ?? "none"}` : undefined,
  });
  return {
    kind: "reply",
    text,
    toolCall: { callId: toolCallId, name: "shell", input: { command }, content, isError, durationMs: result.durationMs, stepKey: stepKey(step.seq) },
  };
}

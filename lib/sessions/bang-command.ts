import type { UIMessageChunk } from "ai";
import type { ChatSession } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { formatCommandResult } from "@/lib/sandbox/types";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { finishStep, recordStep } from "./steps";
import { stepKey } from "./sessions";

/**
 * `!command` in chat: the owner runs a command in their own sandbox without the model (no approval:
 * the person typed it). It is recorded as a tool step with no parent model call, and the model sees
 * it in later turns as something the user did.
 */
export async function runBangCommand(options: { session: ChatSession; command: string }): Promise<AsyncIterable<UIMessageChunk>> {
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
    input: { toolCallId, name: "shell", arguments: { command }, bang: true },
  });
  const result = await runtime.sandbox.run({
    userId: session.userId,
    sessionId: session.id,
    command,
    timeoutMs: getBehaviourConfig().sandbox.timeoutSeconds * 1000,
  });
  const text = formatCommandResult(result);
  const isError = result.exitCode !== 0;
  await finishStep(step.id, {
    status: isError ? "FAILED" : "COMPLETED",
    output: { content: [{ type: "text", text }], isError, durationMs: result.durationMs },
    error: isError ? `exit code ${result.exitCode ?? "none"}` : undefined,
  });
  async function* chunks(): AsyncIterable<UIMessageChunk> {
    yield { type: "start" };
    yield { type: "start-step" };
    yield { type: "tool-input-available", toolCallId, toolName: "shell", input: { command }, dynamic: true };
    yield { type: "tool-output-available", toolCallId, output: { text, isError, durationMs: result.durationMs, step: stepKey(step.seq) }, dynamic: true };
    yield { type: "finish-step" };
    yield { type: "finish" };
  }
  return chunks();
}

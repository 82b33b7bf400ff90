import { z } from "zod";
import type { TSandboxRuntime } from "@/lib/sandbox/runtime";
import { formatCommandResult } from "@/lib/sandbox/types";
import { defineTool, type TTool } from "./registry";

/**
 * shell and run_python exist only when a sandbox does (bubblewrap or e2b); with sandbox.mode none,
 * or no bwrap installed, they are not registered at all, so there is nothing to misuse.
 */
export function createShellTools(runtime: TSandboxRuntime, options: { timeoutSeconds: number }): TTool[] {
  const sandbox = runtime.sandbox;
  if (!sandbox) return [];
  const where = sandbox.mode === "bubblewrap" ? "an isolated sandbox with no network; your workspace is the current folder" : "a remote sandbox for this session";

  const shell = defineTool({
    name: "shell",
    description: `Run a shell command (sh) in ${where}. Output is capped; long-running commands are killed after the time limit.`,
    input: z.object({
      command: z.string().min(1).max(10_000),
      timeout_seconds: z.int().min(1).max(options.timeoutSeconds).optional().describe(`At most ${options.timeoutSeconds}`),
    }),
    risk: "execute",
    preview: async ({ command }) => ({ title: "Run a shell command", command }),
    async execute({ command, timeout_seconds }, context) {
      const result = await sandbox.run({ userId: context.userId, sessionId: context.sessionId, scope: context.workspace, command, timeoutMs: (timeout_seconds ?? options.timeoutSeconds) * 1000, signal: context.signal });
      return { content: [{ type: "text", text: formatCommandResult(result) }], isError: result.exitCode !== 0 };
    },
  });

  if (!sandbox.hasPython) return [shell];
  const runPython = defineTool({
    name: "run_python",
    description: `Run a Python 3 program in ${where}. Print what you want to see.`,
    input: z.object({ code: z.string().min(1).max(100_000) }),
    risk: "execute",
    preview: async ({ code }) => ({ title: "Run a Python program", command: code }),
    async execute({ code }, context) {
      const result = await sandbox.run({ userId: context.userId, sessionId: context.sessionId, scope: context.workspace, command: "python3 -", stdin: code, timeoutMs: options.timeoutSeconds * 1000, signal: context.signal });
      return { content: [{ type: "text", text: formatCommandResult(result) }], isError: result.exitCode !== 0 };
    },
  });
  return [shell, runPython];
}

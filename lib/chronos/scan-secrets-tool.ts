import path from "node:path";
import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { sandboxRuntime, workspaceRoot } from "@/lib/sandbox/runtime";
import { Workspace, type TWorkspaceFiles } from "@/lib/sandbox/workspace-files";
import { defineTool, type TToolContext } from "@/lib/tools/registry";
import { findSecrets } from "./secret-patterns";

/**
 * scan_secrets: looks through the user's workspace (or one folder or file of it) for credentials
 * that should not be there. The first line of the answer is CLEAN or FOUND, so an unattended job
 * can decide in one step; findings follow as `path:line  [kind]  masked`. Files are read through
 * the workspace's own checks (no symlink is followed, nothing outside the workspace is read), with
 * the extensions widened to the files secrets hide in (.env, .pem, files without an extension).
 */
const MAX_FILES = 5_000;
const MAX_FINDINGS = 200;
const MAX_READ_BYTES = 2 * 1024 * 1024;
const SKIPPED_FOLDERS = new Set([".git", "node_modules", ".venv", "__pycache__"]);
const EXTRA_EXTENSIONS = ["", ".env", ".local", ".production", ".development", ".staging", ".pem", ".key", ".crt", ".cfg", ".conf", ".config", ".properties", ".tf", ".tfvars", ".kt", ".swift", ".cs", ".gradle", ".bak", ".example", ".sample", ".dist", ".ipynb", ".vue", ".svelte", ".scala", ".pl", ".ps1", ".bat", ".lua", ".dart", ".r", ".txt", ".cjs", ".mts", ".cts"];

function scanWorkspace(context: TToolContext): TWorkspaceFiles {
  const runtime = sandboxRuntime();
  // A remote (e2b) workspace has its own reader with the configured extensions.
  if (runtime.mode === "e2b") return runtime.workspaceFor(context.userId, context.sessionId);
  const readExtensions = [...new Set([...runtime.limits.readExtensions, ...EXTRA_EXTENSIONS, ...getBehaviourConfig().workspace.readExtensions])];
  return new Workspace(workspaceRoot(context.userId), { ...runtime.limits, readExtensions, maxReadBytes: Math.max(runtime.limits.maxReadBytes, MAX_READ_BYTES) });
}

export const scanSecretsTool = defineTool({
  name: "scan_secrets",
  description:
    "Scan your workspace (or one folder or file in it) for secrets that should not be stored there: API keys and tokens (OpenAI, Anthropic, AWS, GitHub, Slack, Stripe, Google …), private keys, passwords in URLs or assignments. The first line of the result is CLEAN or FOUND; findings list file:line and the kind, with values masked.",
  input: z.object({ path: z.string().max(1_024).optional().describe("Folder or file relative to the workspace; default the whole workspace") }),
  risk: "read",
  async execute({ path: requested }, context) {
    const workspace = scanWorkspace(context);
    const start = requested?.trim() || ".";
    const files: string[] = [];
    let skipped = 0;
    let listed: Awaited<ReturnType<TWorkspaceFiles["list"]>> | undefined;
    try {
      listed = await workspace.list(start);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // Not a folder: perhaps a file.
      if (/is a file/.test(error.message)) files.push(start);
      else return { content: [{ type: "text", text: error.message }], isError: true };
    }
    if (listed) {
      const queue: { folder: string; entries: typeof listed.entries }[] = [{ folder: listed.relative === "." ? "" : listed.relative, entries: listed.entries }];
      while (queue.length && files.length < MAX_FILES) {
        const { folder, entries } = queue.shift()!;
        for (const entry of entries) {
          const relative = folder ? path.posix.join(folder, entry.name) : entry.name;
          if (entry.type === "file") files.push(relative);
          else if (entry.type === "directory" && !SKIPPED_FOLDERS.has(entry.name)) {
            try {
              queue.push({ folder: relative, entries: (await workspace.list(relative)).entries });
            } catch {
              skipped++;
            }
          } else if (entry.type !== "directory") skipped++;
          if (files.length >= MAX_FILES) break;
        }
      }
    }
    const findings: string[] = [];
    const foundIn = new Set<string>();
    let scanned = 0;
    let total = 0;
    for (const [index, file] of files.entries()) {
      if (context.signal.aborted) break;
      if (index % 100 === 0 && files.length > 100) context.progress({ text: `Scanned ${index} of ${files.length} files`, fraction: index / files.length });
      let text: string;
      try {
        text = (await workspace.readText(file)).text;
      } catch {
        // Binary, too large, a type that is not read, or changed meanwhile: not scanned.
        skipped++;
        continue;
      }
      scanned++;
      for (const finding of findSecrets(text)) {
        foundIn.add(file);
        total++;
        if (findings.length < MAX_FINDINGS) findings.push(`${file}:${finding.line}  [${finding.kind}]  ${finding.masked}`);
        else if (findings.length === MAX_FINDINGS) findings.push(`… more findings not listed (at most ${MAX_FINDINGS})`);
      }
    }
    const scope = start === "." ? "the workspace" : start;
    const notes = [`${scanned} file${scanned === 1 ? "" : "s"} scanned in ${scope}`, skipped ? `${skipped} skipped (binary, too large, unreadable type or symlink)` : "", files.length >= MAX_FILES ? `stopped after ${MAX_FILES} files` : ""].filter(Boolean).join("; ");
    if (!foundIn.size) return `CLEAN\n${notes}.`;
    return `FOUND\n${total} possible secret${total === 1 ? "" : "s"} in ${foundIn.size} file${foundIn.size === 1 ? "" : "s"} (${notes}):\n${findings.join("\n")}`;
  },
});

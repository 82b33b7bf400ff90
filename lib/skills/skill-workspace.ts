import path from "node:path";
import { readBundleFolder } from "@/lib/bundles/bundle-hash";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { createLogger } from "@/lib/observability/logger";
import { E2bSandbox, REMOTE_WORKDIR, RemoteWorkspace } from "@/lib/sandbox/e2b-sandbox";
import { sandboxRuntime, workspaceRoot } from "@/lib/sandbox/runtime";
import { Workspace, type TWorkspaceFiles } from "@/lib/sandbox/workspace-files";
import type { TLoadedSkill } from "./skill-store";

/**
 * `{baseDir}`: where a skill's folder is as the agent sees it. A skill's scripts and references are
 * copied into the user's own workspace (`.skills/<name>/`) when the skill is loaded, so they are
 * reached only through the sandbox (the shell tool, with approval) and the file tools, exactly like
 * the user's other files; nothing of a skill ever runs on the host.
 */
const log = createLogger("skills");

export function skillRelativeDirectory(name: string): string {
  return `.skills/${name}`;
}

/** The folder as the agent sees it: inside the sandbox when there is one. */
export function skillBaseDir(name: string, mode = sandboxRuntime().mode): string {
  if (mode === "bubblewrap") return `/workspace/${skillRelativeDirectory(name)}`;
  if (mode === "e2b") return `${REMOTE_WORKDIR}/${skillRelativeDirectory(name)}`;
  return skillRelativeDirectory(name);
}

function workspaceFor(userId: string, sessionId: string, extensions: string[]): TWorkspaceFiles {
  const runtime = sandboxRuntime();
  // The skill was reviewed with all its files, whatever their extension: allow exactly those.
  const limits = { ...runtime.limits, writeExtensions: [...new Set([...runtime.limits.writeExtensions, ...extensions])] };
  const sandbox = runtime.sandbox;
  if (sandbox instanceof E2bSandbox) return new RemoteWorkspace(() => sandbox.sandboxFor(userId, sessionId), limits);
  // As the file tools do: when the app runs as root, what it writes belongs to the sandbox's user.
  const { runAsUid, runAsGid } = getBehaviourConfig().sandbox;
  return new Workspace(workspaceRoot(userId), limits, { owner: process.getuid?.() === 0 ? { uid: runAsUid, gid: runAsGid } : undefined });
}

/** Copies the skill's other files into the user's workspace; returns what could not be copied. */
export async function materializeSkill(options: { userId: string; sessionId: string; skill: TLoadedSkill }): Promise<string[]> {
  const { skill } = options;
  if (!skill.directory) return [];
  const files = (await readBundleFolder(skill.directory)).filter((file) => file.path !== "SKILL.md");
  if (!files.length) return [];
  const workspace = workspaceFor(options.userId, options.sessionId, files.map((file) => path.extname(file.path).toLowerCase()).filter(Boolean));
  const skipped: string[] = [];
  for (const file of files) {
    const text = file.data.toString("utf8");
    if (file.data.includes(0) || Buffer.from(text, "utf8").length !== file.data.length) {
      skipped.push(`${file.path} (binary)`);
      continue;
    }
    try {
      await workspace.writeText(`${skillRelativeDirectory(skill.name)}/${file.path}`, text);
    } catch (error) {
      skipped.push(`${file.path} (${(error as Error).message})`);
    }
  }
  if (skipped.length) log.warn("some skill files were not copied to the workspace", { skill: skill.name, skipped });
  return skipped;
}

import path from "node:path";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { WorkspacePathError } from "@/lib/sandbox/workspace-paths";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { announceTask } from "./worker-hub";

/**
 * Deliveries: files a worker submits to its task's folder, shared/<task>/ in the owner's workspace.
 * This is the only way an artifact pointer comes to exist. Paths are relative to that folder
 * ("report.md", "src/jwt.ts"); the folder's own path ("shared/<task>/report.md", or the shell's
 * "/workspace/shared/<task>/report.md") is accepted too. Anything that leaves it — "..", another
 * absolute path, another task's folder, a symlink — is refused (the last by the workspace checks).
 */
export function deliveryPath(requested: string, folder: string): string {
  let relative = requested.trim().replace(/\\/g, "/");
  // The shell's name for the folder (its workspace is mounted at /workspace).
  if (relative.startsWith(`/workspace/${folder}/`)) relative = relative.slice("/workspace/".length);
  if (path.posix.isAbsolute(relative)) throw new WorkspacePathError(`"${requested}" is outside this task's delivery folder (${folder}/). Give a file name such as report.md.`);
  if (relative.startsWith(`${folder}/`)) relative = relative.slice(folder.length + 1);
  else if (relative.startsWith("shared/")) throw new WorkspacePathError(`"${requested}" is another task's folder; deliver into ${folder}/ only.`);
  const normalized = path.posix.normalize(relative);
  if (!normalized || normalized === "." || normalized === ".." || normalized.startsWith("../")) {
    throw new WorkspacePathError(`"${requested}" is outside this task's delivery folder (${folder}/). Give a file name such as report.md.`);
  }
  return normalized;
}

/** Writes a delivery and records it on the worker's task; returns the pointer (shared/<task>/<file>). */
export async function deliverFile(options: { userId: string; taskId: string; folder: string; path: string; content: string }): Promise<string> {
  const relative = deliveryPath(options.path, options.folder);
  const written = await sandboxRuntime().folderFor(options.userId, options.folder).writeText(relative, options.content);
  const pointer = `${options.folder}/${written.relative}`;
  const task = await db().agentTask.findFirst({ where: { id: options.taskId, userId: options.userId }, select: { artifacts: true } });
  if (!task) throw new AppError("not_found", "This worker's task no longer exists.");
  if (!task.artifacts.includes(pointer)) await db().agentTask.update({ where: { id: options.taskId }, data: { artifacts: { push: pointer } } });
  announceTask(options.taskId);
  return pointer;
}

/** Reads a delivered file for its owner; a pointer outside shared/<task>/ of their own tasks is "not found". */
export async function readDelivery(options: { userId: string; pointer: string }): Promise<{ path: string; text: string; bytes: number }> {
  const match = /^shared\/([a-z0-9]{6,16})\/(.+)$/.exec(options.pointer.trim());
  const task = match ? await db().agentTask.findFirst({ where: { userId: options.userId, taskKey: match[1] }, select: { id: true } }) : null;
  if (!match || !task) throw new AppError("not_found", "No such delivered file.");
  const folder = `shared/${match[1]}`;
  const read = await sandboxRuntime().folderFor(options.userId, folder).readText(deliveryPath(match[2]!, folder));
  return { path: `${folder}/${read.relative}`, text: read.text, bytes: read.bytes };
}

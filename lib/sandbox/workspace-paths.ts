import { constants as FS } from "node:fs";
import { chown, mkdir, open, readlink, realpath, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import type { TWorkspaceOwner } from "./workspace-usage";

/**
 * Where a workspace path really leads: the lexical checks every requested path passes, the real
 * path of what exists, the kernel's own name for an opened descriptor, and folders opened one
 * component at a time without following a symlink. workspace-files.ts builds its file access on these.
 */
export class WorkspacePathError extends AppError {
  constructor(message: string) {
    super("bad_request", message);
    this.name = "WorkspacePathError";
  }
}

const MAX_PATH_LENGTH = 1_024;

export function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

const MAX_NAME_BYTES = 255;

/**
 * Lexical checks and normalisation; returns the path relative to the workspace root ("" = root).
 * `aliases` are other spellings of the root (the configured path when the root is reached through
 * a symlink) that absolute paths may use.
 */
export function normalizeWorkspacePath(root: string, requested: string, aliases: string[] = []): string {
  if (typeof requested !== "string") throw new WorkspacePathError("The path must be a string.");
  if (requested.includes("\0")) throw new WorkspacePathError("The path contains a NUL byte.");
  if (requested.length > MAX_PATH_LENGTH) throw new WorkspacePathError(`The path is longer than ${MAX_PATH_LENGTH} characters.`);
  // Models often pad paths with spaces; a file name with leading or trailing spaces is never meant.
  const trimmed = requested.trim();
  let relative = trimmed;
  if (path.isAbsolute(trimmed)) {
    const absolute = path.resolve(trimmed);
    const base = [root, ...aliases].find((candidate) => inside(candidate, absolute));
    if (!base) {
      throw new WorkspacePathError(`"${requested}" is outside your workspace. Use a path relative to the workspace, e.g. notes/todo.md.`);
    }
    relative = path.relative(base, absolute);
  }
  const resolved = path.resolve(root, relative || ".");
  if (!inside(root, resolved)) throw new WorkspacePathError(`"${requested}" is outside your workspace ("..").`);
  const normalized = path.relative(root, resolved);
  if (normalized.split(path.sep).some((name) => Buffer.byteLength(name) > MAX_NAME_BYTES)) {
    throw new WorkspacePathError(`A name in "${requested}" is longer than ${MAX_NAME_BYTES} bytes.`);
  }
  return normalized;
}

/** The real path of the deepest ancestor of `target` that exists (symlinks followed). */
export async function realAncestor(target: string): Promise<{ real: string; missing: string[] }> {
  const missing: string[] = [];
  let current = target;
  while (true) {
    try {
      return { real: await realpath(current), missing };
    } catch (error) {
      // Missing, or a file / symlink loop where a folder should be: judge the part that resolves.
      // Walking up (instead of failing) also keeps the answer the same whatever lies outside.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new WorkspacePathError("The path goes through a symlink loop.");
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      missing.unshift(path.basename(current));
      const parent = path.dirname(current);
      if (parent === current) throw error;
      current = parent;
    }
  }
}

export async function descriptorPath(handle: FileHandle): Promise<string> {
  return readlink(`/proc/self/fd/${handle.fd}`);
}

export function extensionOf(name: string): string {
  const base = path.basename(name).toLowerCase();
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot) : "";
}

export function assertExtension(relative: string, allowed: string[], verb: "read" | "write") {
  const extension = extensionOf(relative);
  if (!allowed.includes(extension)) {
    const shown = extension || "(no extension)";
    throw new WorkspacePathError(`Files of type ${shown} cannot be ${verb === "read" ? "read" : "written"} by this tool. Allowed: ${allowed.join(", ")}.`);
  }
}

/**
 * Opens (and with `create`, makes) the folder `relative` below `root` one component at a time,
 * each opened relative to the verified one before it with O_NOFOLLOW, so no symlink anywhere on
 * the way is followed — the folder is inside `root` whatever else writes there. The caller closes
 * the handle. Used for a worker's folders, which the owner's own agent could otherwise swap for links.
 */
export async function openDirectoryBeneath(root: string, relative: string, options: { create: boolean; owner?: TWorkspaceOwner }): Promise<FileHandle> {
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.some((part) => part === ".." || part.includes("\0") || Buffer.byteLength(part) > MAX_NAME_BYTES)) {
    throw new WorkspacePathError(`"${relative}" is not a folder name below the workspace.`);
  }
  await mkdir(root, { recursive: true, mode: 0o700 });
  let dir = await open(root, FS.O_RDONLY | FS.O_DIRECTORY);
  try {
    for (const part of parts) {
      const next = `/proc/self/fd/${dir.fd}/${part}`;
      if (options.create) {
        await mkdir(next, { mode: 0o700 }).then(
          async () => {
            if (options.owner) await chown(next, options.owner.uid, options.owner.gid);
          },
          (error: NodeJS.ErrnoException) => {
            if (error.code !== "EEXIST") throw new WorkspacePathError(`Cannot create the folder "${relative}" (${error.code}).`);
          },
        );
      }
      const child = await open(next, FS.O_RDONLY | FS.O_DIRECTORY | FS.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw new AppError("not_found", `No such folder: ${relative}`);
        throw new WorkspacePathError(`"${relative}" goes through a symlink or a file where a folder should be.`);
      });
      await dir.close();
      dir = child;
    }
    return dir;
  } catch (error) {
    await dir.close();
    throw error;
  }
}

/** The real path of an open descriptor (what the kernel says it is, whatever was renamed). */
export async function realPathOf(handle: FileHandle): Promise<string> {
  return descriptorPath(handle);
}

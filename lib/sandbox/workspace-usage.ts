import { constants as FS, type Stats } from "node:fs";
import { chmod, chown, lstat, open, readdir, type FileHandle } from "node:fs/promises";

/**
 * Measures a workspace and keeps it safe to leave on the host, before and after every command:
 *
 * - disk usage (allocated blocks, so sparse files count for what they take; hard links once), for
 *   the per-user quota;
 * - setuid and setgid bits are removed from everything: a program the sandbox marked setuid must
 *   never become a way up for whoever runs it on the host;
 * - with `owner` (the app runs as root and commands as the sandbox user), everything is given to
 *   the sandbox user, so files the file tools or an older version made stay usable in the sandbox.
 *
 * The sandbox may be changing the tree at the same time (another session of the same user), so the
 * walk never follows a symlink and never resolves a path from the root: each directory is opened
 * with O_NOFOLLOW relative to its already opened parent (/proc/self/fd/N/name, as in
 * workspace-files.ts), and an entry is changed only through a descriptor of that very inode
 * (O_PATH, then /proc/self/fd/N), after checking it is the inode that was inspected.
 */
export type TWorkspaceOwner = { uid: number; gid: number };

export type TWorkspaceUsage = {
  bytes: number;
  entries: number;
  /** False when the walk stopped early (too many entries or too deep): the usage is then unknown. */
  complete: boolean;
  /** Paths (relative) whose setuid/setgid bits were removed. */
  cleared: string[];
  /** With `files: true`: every regular file (workspace-quota.ts cuts back what grew past the quota). */
  files?: TWorkspaceFile[];
};

/** A regular file as the walk saw it; `key` names the inode (device and number). */
export type TWorkspaceFile = { key: string; path: string; size: number; bytes: number; modifiedMs: number };

export const MAX_WORKSPACE_ENTRIES = 200_000;
export const MAX_WORKSPACE_DEPTH = 128;

// O_PATH (Linux, every architecture Node supports): a descriptor that names an inode without
// opening it, so it works for any file type and mode and never blocks. Node does not export it.
const O_PATH = 0o10000000;
const SET_ID_BITS = 0o6000;

type TWalk = { bytes: number; entries: number; complete: boolean; cleared: string[]; seen: Set<string>; owner?: TWorkspaceOwner; repair: boolean; files?: TWorkspaceFile[] };

export function inodeKey(stats: { dev: number; ino: number }): string {
  return `${stats.dev}:${stats.ino}`;
}

function needsRepair(walk: TWalk, stats: Stats): boolean {
  if (!walk.repair || stats.isSymbolicLink()) return false;
  if (stats.mode & SET_ID_BITS) return true;
  return walk.owner !== undefined && (stats.uid !== walk.owner.uid || stats.gid !== walk.owner.gid);
}

/** Changes owner and mode of exactly the inode `stats` describes, or nothing if it was swapped. */
async function repair(walk: TWalk, entryPath: string, stats: Stats, relative: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(entryPath, O_PATH | FS.O_NOFOLLOW);
  } catch {
    return; // gone (or swapped for something unopenable) since lstat: the next walk sees it
  }
  try {
    const current = await handle.stat();
    if (current.ino !== stats.ino || current.dev !== stats.dev || current.isSymbolicLink()) return;
    const self = `/proc/self/fd/${handle.fd}`;
    if (walk.owner && (current.uid !== walk.owner.uid || current.gid !== walk.owner.gid)) await chown(self, walk.owner.uid, walk.owner.gid);
    // chown clears the bits of files but not of directories, so check again after it.
    const mode = (await handle.stat()).mode & 0o7777;
    if (mode & SET_ID_BITS) await chmod(self, mode & ~SET_ID_BITS);
    if (current.mode & SET_ID_BITS) walk.cleared.push(relative || ".");
  } finally {
    await handle.close();
  }
}

async function openDirectory(entryPath: string): Promise<FileHandle> {
  const flags = FS.O_RDONLY | FS.O_DIRECTORY | FS.O_NOFOLLOW;
  try {
    return await open(entryPath, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES") throw error;
    // Only when the app runs as the sandbox's own user: a folder the command made unreadable
    // (chmod 000) would otherwise hide its contents from the quota. Its owner may open it up again.
    const handle = await open(entryPath, O_PATH | FS.O_NOFOLLOW);
    try {
      const stats = await handle.stat();
      if (!stats.isDirectory()) throw error;
      await chmod(`/proc/self/fd/${handle.fd}`, (stats.mode & 0o7777) | 0o700);
    } finally {
      await handle.close();
    }
    return open(entryPath, flags);
  }
}

function count(walk: TWalk, stats: Stats): void {
  if (!stats.isDirectory() && stats.nlink > 1) {
    const key = inodeKey(stats);
    if (walk.seen.has(key)) return;
    walk.seen.add(key);
  }
  walk.bytes += stats.blocks * 512;
}

function record(walk: TWalk, stats: Stats, relative: string): void {
  if (!walk.files || !stats.isFile()) return;
  walk.files.push({ key: inodeKey(stats), path: relative, size: stats.size, bytes: stats.blocks * 512, modifiedMs: stats.mtimeMs });
}

async function walkDirectory(walk: TWalk, directory: FileHandle, relative: string, depth: number): Promise<void> {
  let names: string[];
  try {
    names = await readdir(`/proc/self/fd/${directory.fd}`);
  } catch {
    walk.complete = false;
    return;
  }
  walk.entries += names.length;
  if (walk.entries > MAX_WORKSPACE_ENTRIES) {
    walk.complete = false;
    return;
  }
  // lstat a folder's entries a batch at a time: several run at once in libuv's thread pool, which
  // makes the walk a few times faster than one by one on big workspaces.
  const found: (Stats | undefined)[] = [];
  for (let start = 0; start < names.length; start += 64) {
    const batch = names.slice(start, start + 64).map((name) => lstat(`/proc/self/fd/${directory.fd}/${name}`).catch(() => undefined));
    found.push(...(await Promise.all(batch)));
  }
  for (const [index, name] of names.entries()) {
    if (!walk.complete) return;
    const stats = found[index];
    if (!stats) continue; // removed meanwhile
    const entryPath = `/proc/self/fd/${directory.fd}/${name}`;
    const entryRelative = relative ? `${relative}/${name}` : name;
    count(walk, stats);
    record(walk, stats, entryRelative);
    if (needsRepair(walk, stats)) await repair(walk, entryPath, stats, entryRelative);
    if (!stats.isDirectory()) continue;
    if (depth + 1 > MAX_WORKSPACE_DEPTH) {
      walk.complete = false;
      return;
    }
    let child: FileHandle;
    try {
      child = await openDirectory(entryPath);
    } catch {
      continue; // replaced by a non-directory or removed since lstat
    }
    try {
      const opened = await child.stat();
      if (opened.ino === stats.ino && opened.dev === stats.dev) await walkDirectory(walk, child, entryRelative, depth + 1);
    } finally {
      await child.close();
    }
  }
}

/** Walks the workspace at `root` (which must exist); see the comment at the top. */
export async function surveyWorkspace(root: string, options: { owner?: TWorkspaceOwner; repair: boolean; files?: boolean }): Promise<TWorkspaceUsage> {
  const walk: TWalk = { bytes: 0, entries: 0, complete: true, cleared: [], seen: new Set(), owner: options.owner, repair: options.repair, files: options.files ? [] : undefined };
  const stats = await lstat(root);
  if (needsRepair(walk, stats)) await repair(walk, root, stats, "");
  count(walk, stats);
  const directory = await openDirectory(root);
  try {
    await walkDirectory(walk, directory, "", 0);
  } finally {
    await directory.close();
  }
  return { bytes: walk.bytes, entries: walk.entries, complete: walk.complete, cleared: walk.cleared, ...(walk.files ? { files: walk.files } : {}) };
}

export function mebibytes(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return value >= 10 ? String(Math.round(value)) : value.toFixed(1);
}

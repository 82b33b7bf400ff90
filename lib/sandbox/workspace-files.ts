import { constants as FS, type Stats } from "node:fs";
import { chown, lstat, mkdir, open, readdir, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import { looksBinary } from "./text-detection";
import { assertExtension, descriptorPath, inside, normalizeWorkspacePath, realAncestor, WorkspacePathError } from "./workspace-paths";
import { workspaceQuota } from "./workspace-quota";
import { inodeKey, mebibytes, surveyWorkspace, type TWorkspaceOwner } from "./workspace-usage";

/**
 * Safe file access inside one user's workspace directory, for the file tools.
 *
 * Every path is resolved against the workspace root and checked twice: before use (lexically, then
 * the real path of the deepest existing ancestor, so symlinks are followed) and after opening (the
 * kernel's own name for the opened descriptor, /proc/self/fd/N), so a directory swapped for a
 * symlink between check and use is caught. Files are opened relative to an already verified
 * directory descriptor (through /proc/self/fd/N/name, Node's stand-in for openat) with O_NOFOLLOW,
 * so a final symlink is never followed and nothing is created outside. Files with more than one
 * hard link are refused: a hard link can point at a file outside the workspace.
 *
 * Writes respect the per-user quota (measured as in workspace-usage.ts): the check and the write
 * hold the workspace's quota lock (workspace-quota.ts), so two writes at once cannot both use the
 * room left, and a write made while commands run is never cut back. When the app runs as root,
 * what the file tools create is given to the sandbox's user (`owner`), so commands can use it.
 */
export type TWorkspaceLimits = {
  readExtensions: string[];
  writeExtensions: string[];
  maxReadBytes: number;
  maxWriteBytes: number;
  /** Disk space the whole workspace may use; unset = no quota (remote workspaces). */
  quotaBytes?: number;
};

export type TListEntry = { name: string; type: "file" | "directory" | "symlink" | "other"; size: number };

/** What the file tools need from a workspace, local (this file) or remote (e2b-sandbox.ts). */
export interface TWorkspaceFiles {
  readText(requested: string): Promise<{ relative: string; text: string; bytes: number }>;
  readTextIfExists(requested: string): Promise<string | undefined>;
  writeText(requested: string, text: string): Promise<{ relative: string; bytes: number; created: boolean }>;
  deleteFile(requested: string): Promise<string>;
  list(requested?: string): Promise<{ relative: string; entries: TListEntry[] }>;
}

export type TWorkspaceOptions = {
  owner?: TWorkspaceOwner;
  /**
   * A folder inside a user's workspace (a worker's scratch or delivery folder, scoped-workspace.ts):
   * the root must resolve to exactly this real path (no symlink on the way), and the quota is
   * measured over `usageRoot`, the whole workspace.
   */
  expectedRealRoot?: string;
  usageRoot?: string;
  /** Reads only: writes and deletes are refused. */
  readOnly?: boolean;
};

export class Workspace implements TWorkspaceFiles {
  private realRoot: string | undefined;

  constructor(
    readonly root: string,
    readonly limits: TWorkspaceLimits,
    private readonly options: TWorkspaceOptions = {},
  ) {}

  private async rootReal(): Promise<string> {
    if (!this.realRoot) {
      if (this.options.expectedRealRoot === undefined) {
        const created = await mkdir(this.root, { recursive: true, mode: 0o700 });
        if (created && this.options.owner) await chown(this.root, this.options.owner.uid, this.options.owner.gid);
      }
      const real = await realpath(this.root);
      if (this.options.expectedRealRoot !== undefined && real !== this.options.expectedRealRoot) {
        throw new WorkspacePathError("This folder was replaced by a link to somewhere else; it is refused.");
      }
      this.realRoot = real;
    }
    return this.realRoot;
  }

  private assertWritable(): void {
    if (this.options.readOnly) throw new WorkspacePathError("This folder is read-only here (deliveries are made with the deliver tool).");
  }

  /** Gives something the app just created to the sandbox's user (when the app runs as root). */
  private async giveToOwner(handle: FileHandle): Promise<void> {
    if (this.options.owner) await handle.chown(this.options.owner.uid, this.options.owner.gid);
  }

  /**
   * Runs a write's quota check and the write itself alone among this workspace's writers; the
   * written file's size then counts as allowed for any command running meanwhile.
   */
  private async withinQuota<T>(write: (written: (stats: Stats) => void) => Promise<T>): Promise<T> {
    if (this.limits.quotaBytes === undefined) return write(() => {});
    const watch = await workspaceQuota(this.options.usageRoot ?? (await this.rootReal()));
    return watch.exclusive(() => write((stats) => watch.noteWritten(inodeKey(stats), stats.size)));
  }

  /** Refuses a write that would take the workspace past its quota. */
  private async assertRoom(requested: string, bytes: number): Promise<void> {
    const quota = this.limits.quotaBytes;
    if (quota === undefined) return;
    const root = await this.rootReal();
    const relative = await this.normalize(requested);
    const usage = await surveyWorkspace(this.options.usageRoot ?? root, { repair: false });
    // The file being replaced frees its space; its current size is only an estimate here (the
    // write itself goes through the checked open below), so a plain lstat will do.
    const replaced = await lstat(path.join(root, relative)).then((stats) => (stats.isFile() ? stats.blocks * 512 : 0), () => 0);
    const projected = usage.bytes - replaced + bytes;
    if (!usage.complete || projected > quota) {
      const shown = usage.complete ? `${mebibytes(projected)} MiB` : "more than can be measured";
      throw new AppError("payload_too_large", `Your workspace is over its quota: writing "${relative}" would make it ${shown} of ${mebibytes(quota)} MiB. Delete files first.`);
    }
  }

  private async normalize(requested: string): Promise<string> {
    return normalizeWorkspacePath(await this.rootReal(), requested, [path.resolve(this.root)]);
  }

  /** Opens the directory that will hold `relative`, verified to be inside the workspace. */
  private async openParent(relative: string, create: boolean): Promise<{ dir: FileHandle; name: string; shown: string }> {
    const root = await this.rootReal();
    const name = path.basename(relative);
    if (!relative || name === "." || name === "..") throw new WorkspacePathError("Give a file name, not a directory.");
    const parentRelative = path.dirname(relative);
    const { real, missing } = await realAncestor(path.join(root, parentRelative));
    if (!inside(root, real)) throw new WorkspacePathError(`"${relative}" leads outside your workspace through a symlink.`);
    if (missing.length && !create) throw new AppError("not_found", `No such file: ${relative}`);
    let dir = await open(real, FS.O_RDONLY | FS.O_DIRECTORY).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOTDIR") throw new WorkspacePathError(`"${relative}" goes through a file where a folder should be.`);
      if (error.code === "ENOENT") throw new AppError("not_found", `No such file: ${relative}`);
      throw error;
    });
    try {
      if (!inside(root, await descriptorPath(dir))) throw new WorkspacePathError(`"${relative}" leads outside your workspace through a symlink.`);
      // Missing directories are created one at a time below the verified descriptor, never following links.
      for (const component of missing) {
        const next = `/proc/self/fd/${dir.fd}/${component}`;
        await mkdir(next, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST") throw new WorkspacePathError(`Cannot create the folder for "${relative}" (${error.code}).`);
        });
        const child = await open(next, FS.O_RDONLY | FS.O_DIRECTORY | FS.O_NOFOLLOW).catch(() => {
          throw new WorkspacePathError(`"${relative}" goes through a symlink or a file where a folder should be.`);
        });
        await dir.close();
        dir = child;
        await this.giveToOwner(dir);
      }
      return { dir, name, shown: relative };
    } catch (error) {
      await dir.close();
      throw error;
    }
  }

  private async verifyOpenedFile(handle: FileHandle, relative: string): Promise<Stats> {
    const root = await this.rootReal();
    if (!inside(root, await descriptorPath(handle))) throw new WorkspacePathError(`"${relative}" is outside your workspace.`);
    const stats = await handle.stat();
    if (!stats.isFile()) throw new WorkspacePathError(`"${relative}" is not a regular file.`);
    if (stats.nlink > 1) throw new WorkspacePathError(`"${relative}" has several hard links and is refused (a hard link can point outside the workspace).`);
    return stats;
  }

  /** `anyExtension`: files the owner uploads themselves (lib/sessions/attachments.ts), not the model's file tools. */
  private async openFile(requested: string, flags: number, verb: "read" | "write", anyExtension = false) {
    const relative = await this.normalize(requested);
    const name = path.basename(relative);
    if (!relative || name === "." || name === "..") throw new WorkspacePathError("Give a file name, not a folder.");
    if (!anyExtension) assertExtension(relative, verb === "read" ? this.limits.readExtensions : this.limits.writeExtensions, verb);
    const { dir } = await this.openParent(relative, verb === "write" && (flags & FS.O_CREAT) !== 0);
    try {
      // O_NONBLOCK: opening a FIFO (mkfifo from the sandbox) must not wait forever for a peer;
      // it changes nothing for regular files, and the checks after opening refuse anything else.
      const handle = await open(`/proc/self/fd/${dir.fd}/${name}`, flags | FS.O_NOFOLLOW | FS.O_NONBLOCK, 0o600).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ELOOP") throw new WorkspacePathError(`"${relative}" is a symlink; symlinks are not followed.`);
        if (error.code === "ENOENT") throw new AppError("not_found", `No such file: ${relative}`);
        if (error.code === "EISDIR") throw new WorkspacePathError(`"${relative}" is a directory.`);
        if (error.code === "ENXIO") throw new WorkspacePathError(`"${relative}" is not a regular file.`);
        if (error.code === "EEXIST") throw new AppError("conflict", `"${relative}" was created by something else at the same moment; try again.`);
        throw error;
      });
      return { handle, relative };
    } finally {
      await dir.close();
    }
  }

  async readText(requested: string): Promise<{ relative: string; text: string; bytes: number }> {
    const { handle, relative } = await this.openFile(requested, FS.O_RDONLY, "read");
    try {
      const stats = await this.verifyOpenedFile(handle, relative);
      if (stats.size > this.limits.maxReadBytes) {
        throw new AppError("payload_too_large", `"${relative}" is ${stats.size} bytes; the limit for reading is ${this.limits.maxReadBytes} bytes.`);
      }
      const buffer = Buffer.alloc(stats.size);
      const { bytesRead } = await handle.read(buffer, 0, stats.size, 0);
      const data = buffer.subarray(0, bytesRead);
      if (looksBinary(data)) throw new WorkspacePathError(`"${relative}" is a binary file; only text files can be read.`);
      return { relative, text: data.toString("utf8"), bytes: bytesRead };
    } finally {
      await handle.close();
    }
  }

  /** Reads a file if it exists (for diffs in approval previews); undefined when it does not. */
  async readTextIfExists(requested: string): Promise<string | undefined> {
    try {
      return (await this.readText(requested)).text;
    } catch (error) {
      if ((error as AppError).code === "not_found") return undefined;
      throw error;
    }
  }

  async writeText(requested: string, text: string): Promise<{ relative: string; bytes: number; created: boolean }> {
    this.assertWritable();
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > this.limits.maxWriteBytes) {
      throw new AppError("payload_too_large", `The content is ${bytes} bytes; the limit for writing is ${this.limits.maxWriteBytes} bytes.`);
    }
    return this.withinQuota(async (written) => {
      await this.assertRoom(requested, bytes);
      return this.writeChecked(requested, text, bytes, written);
    });
  }

  private async writeChecked(requested: string, text: string, bytes: number, written: (stats: Stats) => void): Promise<{ relative: string; bytes: number; created: boolean }> {
    let created = false;
    // Open without creating first, so an existing file is never replaced through a race.
    const { handle, relative } = await this.openFile(requested, FS.O_WRONLY, "write").catch(async (error: AppError) => {
      if (error.code !== "not_found") throw error;
      created = true;
      return this.openFile(requested, FS.O_WRONLY | FS.O_CREAT | FS.O_EXCL, "write").catch((second: AppError) => {
        // Someone created it between our two opens: open what is there now (and verify it).
        if (second.code !== "conflict") throw second;
        created = false;
        return this.openFile(requested, FS.O_WRONLY, "write");
      });
    });
    try {
      await this.verifyOpenedFile(handle, relative);
      if (created) await this.giveToOwner(handle);
      // Truncate only after the descriptor is verified to be ours.
      await handle.truncate(0);
      await handle.write(text, 0, "utf8");
      written(await handle.stat());
      return { relative, bytes, created };
    } finally {
      await handle.close();
    }
  }

  /**
   * A new file the owner uploaded: created exclusively (an existing file is never replaced; the
   * caller picks another name on `conflict`), any extension, within the quota and the same path checks.
   */
  async createUpload(requested: string, data: Uint8Array): Promise<{ relative: string; bytes: number }> {
    return this.withinQuota(async (written) => {
      await this.assertRoom(requested, data.byteLength);
      const { handle, relative } = await this.openFile(requested, FS.O_WRONLY | FS.O_CREAT | FS.O_EXCL, "write", true);
      try {
        await this.verifyOpenedFile(handle, relative);
        await this.giveToOwner(handle);
        await handle.write(data, 0, data.byteLength, 0);
        written(await handle.stat());
        return { relative, bytes: data.byteLength };
      } finally {
        await handle.close();
      }
    });
  }

  /** The bytes of an uploaded file (any extension), at most `maxBytes`. */
  async readUpload(requested: string, maxBytes: number): Promise<{ relative: string; data: Buffer }> {
    const { handle, relative } = await this.openFile(requested, FS.O_RDONLY, "read", true);
    try {
      const stats = await this.verifyOpenedFile(handle, relative);
      if (stats.size > maxBytes) throw new AppError("payload_too_large", `"${relative}" is larger than ${maxBytes} bytes.`);
      const buffer = Buffer.alloc(stats.size);
      const { bytesRead } = await handle.read(buffer, 0, stats.size, 0);
      return { relative, data: buffer.subarray(0, bytesRead) };
    } finally {
      await handle.close();
    }
  }

  async deleteFile(requested: string): Promise<string> {
    this.assertWritable();
    const { handle, relative } = await this.openFile(requested, FS.O_RDONLY, "write");
    try {
      await this.verifyOpenedFile(handle, relative);
    } finally {
      await handle.close();
    }
    const { dir, name } = await this.openParent(relative, false);
    try {
      await unlink(`/proc/self/fd/${dir.fd}/${name}`);
    } finally {
      await dir.close();
    }
    return relative;
  }

  async list(requested = "."): Promise<{ relative: string; entries: TListEntry[] }> {
    const root = await this.rootReal();
    const relative = await this.normalize(requested);
    const { real, missing } = await realAncestor(path.join(root, relative));
    if (!inside(root, real)) throw new WorkspacePathError(`"${requested}" leads outside your workspace through a symlink.`);
    if (missing.length) throw new AppError("not_found", `No such folder: ${relative}`);
    const dir = await open(real, FS.O_RDONLY | FS.O_DIRECTORY).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new AppError("not_found", `No such folder: ${relative || "."}`);
      if (error.code === "ENOTDIR") throw new WorkspacePathError(`"${relative}" is a file, not a folder.`);
      throw error;
    });
    try {
      const verified = await descriptorPath(dir);
      if (!inside(root, verified)) throw new WorkspacePathError(`"${requested}" leads outside your workspace through a symlink.`);
      const names = (await readdir(`/proc/self/fd/${dir.fd}`)).sort();
      const entries = await Promise.all(
        names.slice(0, 1_000).map(async (name) => {
          const stats = await lstat(`/proc/self/fd/${dir.fd}/${name}`);
          const type = stats.isSymbolicLink() ? "symlink" : stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
          return { name, type: type as "file" | "directory" | "symlink" | "other", size: stats.isFile() ? stats.size : 0 };
        }),
      );
      return { relative: relative || ".", entries };
    } finally {
      await dir.close();
    }
  }
}


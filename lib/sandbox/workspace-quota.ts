import { constants as FS } from "node:fs";
import { open, realpath, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@/lib/observability/logger";
import { inodeKey, mebibytes, surveyWorkspace, type TWorkspaceUsage } from "./workspace-usage";
import { processSingleton } from "@/lib/process-singleton";

/**
 * The workspace quota across everything written at once: all the files one command writes, two
 * commands of the same user running side by side, and the file tools. The file-size rlimit a
 * command gets (the room left when it starts, bubblewrap-sandbox.ts) bounds each file, not their
 * sum, and a check before a write says nothing about a command writing at the same moment.
 *
 * One watch per workspace in this process (shared by every module graph through globalThis):
 * - when the first command starts, it notes the size of every file (the baseline);
 * - while commands run, it measures the workspace (every 100 ms, or twice as long as a measurement
 *   takes, at most 2 s), and once more as each command ends;
 * - when the workspace is over its quota, it stops every command of that workspace still running,
 *   waits for them to exit, then cuts the files that grew since the baseline back, the most recently
 *   written first, until the workspace fits: the writes past the quota are undone, as a disk quota
 *   would have refused them. Files as they were before, and what the file tools wrote, are never
 *   cut: the file tools check and write under the watch's lock and their sizes join the baseline.
 * Between a write past the quota and the cut the workspace is over it for at most one measurement
 * interval's worth of writing; when the commands are over, it is within the quota.
 */
export type TQuotaCut = { path: string; fromBytes: number; toBytes: number };

/** What the watch did while a command ran: stopped it (it was still running), and what it cut. */
export type TQuotaEnforcement = { stopped: boolean; cuts: TQuotaCut[]; usage: TWorkspaceUsage; quotaBytes: number };

type TCommandEntry = { stop?: () => void; exited?: Promise<unknown>; done: boolean; stopped: boolean; enforcement?: TQuotaEnforcement };

export type TQuotaTicket = {
  /** The command's process: how to stop it and when it has exited. */
  attach(stop: () => void, exited: Promise<unknown>): void;
  /** After the command exited: a last measurement, and what the watch did while it ran, if anything. */
  leave(): Promise<TQuotaEnforcement | undefined>;
};

const log = createLogger("sandbox");
const MIN_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 2_000;
const BLOCK = 4_096;
const MAX_CUT_ROUNDS = 5;

class WorkspaceQuotaWatch {
  private readonly commands = new Set<TCommandEntry>();
  /** Inode → size that may stay, while commands run. */
  private baseline: Map<string, number> | undefined;
  private enforcing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private quotaBytes = 0;

  constructor(private readonly root: string) {}

  /** Runs `work` alone among the writers that take the lock (file tools, cutting back). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lock.then(work, work);
    this.lock = result.catch(() => {});
    return result;
  }

  /** A write the file tools made within the quota: it is never cut back. */
  noteWritten(key: string, size: number): void {
    this.baseline?.set(key, size);
  }

  /**
   * Registers a command about to start. `measure` measures the workspace with `files: true`; it runs
   * once any cutting back is over, and its result is returned (the room the command starts with).
   */
  async enter(quotaBytes: number, measure: () => Promise<TWorkspaceUsage>): Promise<{ ticket: TQuotaTicket; before: TWorkspaceUsage }> {
    await this.enforcing;
    const before = await measure();
    this.quotaBytes = quotaBytes;
    if (!this.baseline) this.baseline = new Map((before.files ?? []).map((file) => [file.key, file.size]));
    const entry: TCommandEntry = { done: false, stopped: false };
    this.commands.add(entry);
    this.schedule(MIN_INTERVAL_MS);
    let left: Promise<TQuotaEnforcement | undefined> | undefined;
    const leave = async (): Promise<TQuotaEnforcement | undefined> => {
      try {
        if (!entry.enforcement) {
          const usage = await surveyWorkspace(this.root, { repair: false });
          if (usage.complete && usage.bytes > this.quotaBytes) await this.enforce();
        }
        await this.enforcing;
        return entry.enforcement;
      } finally {
        this.commands.delete(entry);
        if (!this.commands.size) {
          this.baseline = undefined;
          clearTimeout(this.timer);
          this.timer = undefined;
        }
      }
    };
    const ticket: TQuotaTicket = {
      attach: (stop, exited) => {
        entry.stop = stop;
        entry.exited = exited.finally(() => {
          entry.done = true;
        });
        if (entry.stopped) stop();
      },
      leave: () => (left ??= leave()),
    };
    return { ticket, before };
  }

  private schedule(delayMs: number): void {
    if (this.timer || !this.commands.size) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.commands.size) return;
    const started = performance.now();
    try {
      if (!this.enforcing) {
        const usage = await surveyWorkspace(this.root, { repair: false });
        if (usage.complete && usage.bytes > this.quotaBytes) await this.enforce();
      }
    } catch (error) {
      log.warn("could not measure a workspace for its quota", { error });
    }
    this.schedule(Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, 2 * (performance.now() - started))));
  }

  private enforce(): Promise<void> {
    this.enforcing ??= (async () => {
      const affected = [...this.commands];
      // A command not started yet is stopped as it starts (attach); one that has exited is left alone.
      for (const entry of affected) {
        if (entry.done) continue;
        entry.stopped = true;
        entry.stop?.();
      }
      await Promise.all(affected.map((entry) => entry.exited));
      const { cuts, usage } = await this.exclusive(() => this.cutBack());
      for (const entry of affected) entry.enforcement = { stopped: entry.stopped, cuts, usage, quotaBytes: this.quotaBytes };
      if (cuts.length) log.warn("cut back files written past the workspace quota", { workspace: path.basename(this.root), cuts: cuts.slice(0, 20) });
    })().finally(() => {
      this.enforcing = undefined;
    });
    return this.enforcing;
  }

  /** Cuts files that grew since the baseline, most recently written first, until the workspace fits. */
  private async cutBack(): Promise<{ cuts: TQuotaCut[]; usage: TWorkspaceUsage }> {
    const cuts = new Map<string, TQuotaCut>();
    let usage = await surveyWorkspace(this.root, { repair: false, files: true });
    for (let round = 0; round < MAX_CUT_ROUNDS && usage.complete && usage.bytes > this.quotaBytes; round++) {
      let excess = usage.bytes - this.quotaBytes;
      const grown = (usage.files ?? [])
        .filter((file) => file.size > (this.baseline?.get(file.key) ?? 0))
        .sort((first, second) => second.modifiedMs - first.modifiedMs);
      if (!grown.length) break;
      for (const file of grown) {
        if (excess <= 0) break;
        const keep = this.baseline?.get(file.key) ?? 0;
        const size = Math.max(keep, Math.floor((file.size - excess) / BLOCK) * BLOCK);
        if (!(await truncateBeneath(this.root, file.path, file.key, size))) continue;
        excess -= file.bytes - Math.ceil(size / BLOCK) * BLOCK;
        const earlier = cuts.get(file.path);
        cuts.set(file.path, { path: file.path, fromBytes: earlier?.fromBytes ?? file.size, toBytes: size });
      }
      usage = await surveyWorkspace(this.root, { repair: false, files: true });
    }
    return { cuts: [...cuts.values()], usage: { ...usage, files: undefined } };
  }
}

/**
 * Truncates the file at `relative` below `root` to `size`, if it is still the inode `key`: each
 * folder on the way is opened relative to the one before without following links.
 */
async function truncateBeneath(root: string, relative: string, key: string, size: number): Promise<boolean> {
  const parts = relative.split("/");
  const name = parts.pop()!;
  let directory: FileHandle = await open(root, FS.O_RDONLY | FS.O_DIRECTORY);
  try {
    for (const part of parts) {
      const next = await open(`/proc/self/fd/${directory.fd}/${part}`, FS.O_RDONLY | FS.O_DIRECTORY | FS.O_NOFOLLOW);
      await directory.close();
      directory = next;
    }
    const file = await open(`/proc/self/fd/${directory.fd}/${name}`, FS.O_WRONLY | FS.O_NOFOLLOW | FS.O_NONBLOCK);
    try {
      const stats = await file.stat();
      if (!stats.isFile() || inodeKey(stats) !== key) return false;
      await file.truncate(size);
      return true;
    } finally {
      await file.close();
    }
  } catch {
    return false; // gone or replaced meanwhile: the next measurement sees what is there
  } finally {
    await directory.close();
  }
}

/** The watch of the workspace at `root` (its real path), the same for every caller in this process. */
export async function workspaceQuota(root: string): Promise<WorkspaceQuotaWatch> {
  const real = await realpath(root);
  const watches = processSingleton("sandbox.workspace-quotas", () => new Map<string, WorkspaceQuotaWatch>());
  let watch = watches.get(real);
  if (!watch) watches.set(real, (watch = new WorkspaceQuotaWatch(real)));
  return watch;
}

/** The status line for a command the watch acted on. */
export function enforcementNote(enforcement: TQuotaEnforcement): string {
  const quota = `${mebibytes(enforcement.quotaBytes)} MiB`;
  const what = enforcement.stopped ? `the workspace went over its quota of ${quota} while this command ran, so it was stopped` : `the workspace went over its quota of ${quota}`;
  const cuts = enforcement.cuts
    .slice(0, 10)
    .map((cut) => `${cut.path} (${mebibytes(cut.fromBytes)} → ${mebibytes(cut.toBytes)} MiB)`)
    .join(", ");
  const more = enforcement.cuts.length > 10 ? ` and ${enforcement.cuts.length - 10} more` : "";
  const cut = enforcement.cuts.length ? `; what was written past it was cut off: ${cuts}${more}` : "";
  return `[quota reached: ${what}${cut}. The workspace now uses ${mebibytes(enforcement.usage.bytes)} MiB; delete files to make room]`;
}

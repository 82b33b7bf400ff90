import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdir, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import type { TCgroupDetection, TCgroupReport, TCommandCgroup } from "./cgroups";
import { HeadTailBuffer, type TCommandResult, type TRunCommandOptions, type TSandbox, type TWorkspaceScope } from "./types";
import { openDirectoryBeneath } from "./workspace-paths";
import { enforcementNote, workspaceQuota, type TQuotaTicket } from "./workspace-quota";
import { MAX_WORKSPACE_DEPTH, MAX_WORKSPACE_ENTRIES, mebibytes, surveyWorkspace, type TWorkspaceOwner, type TWorkspaceUsage } from "./workspace-usage";

/**
 * Runs commands in bubblewrap: a fresh mount, PID, network, IPC and UTS namespace per command; the
 * system read-only (/usr and the merged-/usr links only — no /etc, /home, /root or /var), the
 * user's workspace read-write at /workspace (nosuid, nodev: bubblewrap's default for binds), a
 * private size-limited /tmp and /proc, no network at all (not even the host's loopback, so the
 * database and the app are out of reach).
 *
 * Limits, from strongest to weakest:
 * - a cgroup per command (cgroups.ts) bounds the memory and the number of processes of the whole
 *   command; without one, each process gets an address-space and process-count rlimit instead;
 * - rlimits (prlimit) for CPU time and file size — the file size is the room left in the user's
 *   workspace quota, so no one file can outgrow it — and no core dumps;
 * - the quota across all the files the user's commands write at once: a watch per workspace
 *   (workspace-quota.ts) measures it while they run, stops them when it is passed and cuts back
 *   what was written past it;
 * - the workspace is measured before and after the command (workspace-usage.ts), which also strips
 *   setuid/setgid bits;
 * - a wall-clock timer kills the whole process group, and with it the PID namespace.
 *
 * When the app runs as root, commands do not: bubblewrap (as root, without a user namespace, which
 * would map the command back to root) sets up the mounts, then setpriv switches to `runAs` with no
 * capabilities, no supplementary groups and no_new_privs. The workspace is owned by that user.
 */
export type TBubblewrapOptions = {
  workspaceRoot: (userId: string) => string;
  maxOutputBytes: number;
  /** The whole command's memory with a cgroup; each process's address space without one. */
  memoryMegabytes: number;
  cpuSeconds: number;
  maxProcesses?: number;
  tmpMegabytes?: number;
  quotaBytes?: number;
  /** The user commands run as when the app runs as root; ignored otherwise. */
  runAs?: TWorkspaceOwner;
  /** From detectCgroups(); without a manager the limits are per process and the reason is reported. */
  cgroups?: TCgroupDetection;
  bwrapPath?: string;
};

/** What this sandbox enforces, in words, for the start log and /api/capabilities. */
export type TSandboxEnforcement = {
  cgroup: "v1" | "v2" | null;
  /** The uid commands run as, or null when they run as the app's own user. */
  runAsUid: number | null;
  enforced: string[];
  notEnforced: string[];
};

const log = createLogger("sandbox");
const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"];
const READ_ONLY_ETC = ["/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/ssl/certs", "/etc/mime.types"];
// util-linux, present on Debian and Ubuntu (Essential). Inside the sandbox they come from the
// read-only /usr, so the command cannot replace them.
const PRLIMIT = "/usr/bin/prlimit";
const SETPRIV = "/usr/bin/setpriv";
const NOBODY: TWorkspaceOwner = { uid: 65_534, gid: 65_534 };
const MEBIBYTE = 1024 * 1024;

export function findBubblewrap(): string | undefined {
  for (const candidate of ["/usr/bin/bwrap", "/usr/local/bin/bwrap"]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** The tools the sandbox needs besides bwrap; a list of what is missing. */
export function missingSandboxTools(runningAsRoot = process.getuid?.() === 0): string[] {
  return [PRLIMIT, ...(runningAsRoot ? [SETPRIV] : [])].filter((tool) => !existsSync(tool));
}

type TBubblewrapFeatures = { version: string; size: boolean; perms: boolean; disableUserns: boolean; bindFd: boolean };
const featureCache = new Map<string, TBubblewrapFeatures>();

/** Options differ between bubblewrap versions (--size needs 0.8): ask the installed one. */
export function bubblewrapFeatures(bwrap: string): TBubblewrapFeatures {
  let features = featureCache.get(bwrap);
  if (!features) {
    const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5_000 }).stdout ?? "";
    const version = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5_000 }).stdout?.trim() ?? "bubblewrap";
    features = { version, size: help.includes("--size"), perms: help.includes("--perms"), disableUserns: help.includes("--disable-userns"), bindFd: help.includes("--bind-fd") };
    featureCache.set(bwrap, features);
  }
  return features;
}

function systemArguments(features: TBubblewrapFeatures): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const link of SYSTEM_LINKS) {
    if (!existsSync(link)) continue;
    const stats = lstatSync(link);
    if (stats.isSymbolicLink()) args.push("--symlink", readlinkSync(link), link);
    else args.push("--ro-bind", link, link);
  }
  // Folders bubblewrap makes on its own for a bind are mode 0700, which as root locks the
  // sandbox's user out of /etc/ssl/certs and friends: make them 0755 first.
  const folders = new Set<string>();
  for (const file of READ_ONLY_ETC.filter((candidate) => existsSync(candidate))) {
    for (let folder = path.dirname(file); folder !== "/"; folder = path.dirname(folder)) folders.add(folder);
  }
  if (features.perms) for (const folder of [...folders].sort()) args.push("--perms", "0755", "--dir", folder);
  for (const file of READ_ONLY_ETC) args.push("--ro-bind-try", file, file);
  return args;
}

function usageText(usage: TWorkspaceUsage): string {
  return usage.complete ? `${mebibytes(usage.bytes)} MiB` : `too much to measure (over ${MAX_WORKSPACE_ENTRIES} files and folders, or deeper than ${MAX_WORKSPACE_DEPTH} levels)`;
}

type TOutcome = { exitCode: number | null; stdout: string; stderr: string; timedOut: boolean; truncated: boolean };

type TScopeFolders = { root: FileHandle; shared?: FileHandle; sharedAt?: string };
const SCOPE_ROOT_FD = 4;
const SCOPE_SHARED_FD = 5;

export class BubblewrapSandbox implements TSandbox {
  readonly mode = "bubblewrap" as const;
  readonly hasPython = existsSync("/usr/bin/python3");
  readonly enforcement: TSandboxEnforcement;
  private readonly system: string[];
  private readonly bwrap: string;
  private readonly features: TBubblewrapFeatures;
  private readonly runAs: TWorkspaceOwner | undefined;
  private readonly maxProcesses: number;
  private readonly tmpBytes: number;
  private readonly quotaBytes: number;

  constructor(private readonly options: TBubblewrapOptions) {
    this.bwrap = options.bwrapPath ?? findBubblewrap() ?? "bwrap";
    this.features = bubblewrapFeatures(this.bwrap);
    this.system = systemArguments(this.features);
    this.runAs = process.getuid?.() === 0 ? (options.runAs ?? NOBODY) : undefined;
    this.maxProcesses = options.maxProcesses ?? 256;
    this.tmpBytes = (options.tmpMegabytes ?? 256) * MEBIBYTE;
    this.quotaBytes = options.quotaBytes ?? 1024 * MEBIBYTE;
    this.enforcement = this.describe();
  }

  private describe(): TSandboxEnforcement {
    const { memoryMegabytes, cpuSeconds } = this.options;
    const manager = this.options.cgroups?.manager;
    const enforced: string[] = [];
    const notEnforced: string[] = [];
    enforced.push(this.runAs ? `commands run as uid ${this.runAs.uid}, gid ${this.runAs.gid} (the app runs as root)` : "commands run as the app's user, in a user namespace");
    if (manager) {
      enforced.push(`memory: ${memoryMegabytes} MiB for the whole command, its /tmp included (cgroup ${manager.version})`);
      enforced.push(`processes: ${this.maxProcesses} for the whole command (cgroup ${manager.version})`);
    } else {
      const reason = this.options.cgroups?.reason ?? "cgroups not configured";
      notEnforced.push(`memory for the whole command: no usable cgroup (${reason}); instead each process may use ${memoryMegabytes} MiB of address space`);
      notEnforced.push(
        this.runAs
          ? `processes per command: no usable cgroup; instead all processes of uid ${this.runAs.uid} on this host together are limited to ${this.maxProcesses}`
          : `processes through a cgroup: none; the limit of ${this.maxProcesses} is an rlimit counted in the command's own user namespace`,
      );
    }
    if (this.features.size) enforced.push(`/tmp: ${this.tmpBytes / MEBIBYTE} MiB`);
    else notEnforced.push(`/tmp size: ${this.features.version} has no --size (0.8+ has); /tmp is bounded only by ${manager ? "the memory cgroup" : "the host's memory"}`);
    enforced.push(
      `workspace quota: ${mebibytes(this.quotaBytes)} MiB per user, across everything its commands write at once (a file may grow only into the room left; the workspace is measured while commands run, and when it passes the quota they are stopped and what was written past it is cut back)`,
    );
    enforced.push(`CPU time: ${cpuSeconds} s per process; no network; read-only system; setuid/setgid bits removed from the workspace`);
    return { cgroup: manager?.version ?? null, runAsUid: this.runAs?.uid ?? null, enforced, notEnforced };
  }

  async releaseSession(): Promise<void> {}

  async run(options: TRunCommandOptions): Promise<TCommandResult> {
    const started = performance.now();
    const workspace = this.options.workspaceRoot(options.userId);
    await mkdir(workspace, { recursive: true, mode: 0o700 });
    const quota = await workspaceQuota(workspace);
    const { ticket, before } = await quota.enter(this.quotaBytes, () => surveyWorkspace(workspace, { owner: this.runAs, repair: true, files: true }));
    try {
      return await this.runWatched(options, workspace, before, ticket, started);
    } finally {
      // Normally already left in runWatched; this only covers a failure before it.
      await ticket.leave().catch(() => undefined);
    }
  }

  private async runWatched(options: TRunCommandOptions, workspace: string, before: TWorkspaceUsage, ticket: TQuotaTicket, started: number): Promise<TCommandResult> {
    const room = before.complete ? Math.max(0, this.quotaBytes - before.bytes) : 0;
    const notes: string[] = [];
    if (room === 0) {
      notes.push(`[workspace full when the command started: ${usageText(before)} of ${mebibytes(this.quotaBytes)} MiB; no file could grow, delete files to make room]`);
    }
    const manager = this.options.cgroups?.manager;
    const memoryBytes = this.options.memoryMegabytes * MEBIBYTE;
    let cgroup: TCommandCgroup | undefined;
    try {
      cgroup = await manager?.create({ memoryBytes, maxProcesses: this.maxProcesses });
    } catch (error) {
      // Fail closed: running without the limits the start log promised would be a silent downgrade.
      throw new AppError("unavailable", `The sandbox could not set up the command's resource limits (${(error as Error).message}).`, { cause: error });
    }
    let outcome: TOutcome;
    let report: TCgroupReport | undefined;
    let folders: TScopeFolders | undefined;
    try {
      folders = options.scope ? await this.openScope(workspace, options.scope) : undefined;
      outcome = await this.execute(options, workspace, room, cgroup, folders, ticket);
      report = await cgroup?.report();
    } finally {
      await folders?.root.close().catch(() => {});
      await folders?.shared?.close().catch(() => {});
      await cgroup?.remove().catch((error: unknown) => log.warn("could not remove a command cgroup", { error }));
    }
    if (report?.outOfMemory) notes.push(`[killed: out of memory; the command may use ${this.options.memoryMegabytes} MiB in all, /tmp included]`);
    if (report?.processLimitReached) notes.push(`[process limit reached: the command may have ${this.maxProcesses} processes at once; more could not start]`);
    const enforcement = await ticket.leave();
    if (enforcement) notes.push(enforcementNote(enforcement));
    const after = await surveyWorkspace(workspace, { owner: this.runAs, repair: true });
    if (!after.complete || after.bytes > this.quotaBytes) {
      notes.push(`[workspace over quota: ${usageText(after)} of ${mebibytes(this.quotaBytes)} MiB; delete files, or the next command cannot write any]`);
    }
    if (after.cleared.length) log.warn("removed setuid/setgid bits left by a command", { userId: options.userId, paths: after.cleared.slice(0, 20) });
    return { ...outcome, durationMs: Math.round(performance.now() - started), ...(notes.length ? { notes } : {}) };
  }

  /**
   * A worker's folders, opened below the user's workspace without following any link and handed to
   * bubblewrap as descriptors (--bind-fd): what is mounted is the folder that was checked, even if
   * a path component is swapped for a symlink meanwhile. bubblewrap closes the descriptors before
   * the command starts.
   */
  private async openScope(workspace: string, scope: TWorkspaceScope): Promise<TScopeFolders> {
    if (!this.features.bindFd) {
      throw new AppError("unavailable", `Workers need bubblewrap 0.8 or newer for their own folders (${this.features.version} has no --bind-fd); their shell is off.`);
    }
    const root = await openDirectoryBeneath(workspace, scope.root, { create: true, owner: this.runAs });
    try {
      if (!scope.shared) return { root };
      // The mount point of the read-only delivery folder; a file or link there is refused.
      await (await openDirectoryBeneath(`/proc/self/fd/${root.fd}`, scope.shared, { create: true, owner: this.runAs })).close();
      return { root, shared: await openDirectoryBeneath(workspace, scope.shared, { create: true, owner: this.runAs }), sharedAt: scope.shared };
    } catch (error) {
      await root.close();
      throw error;
    }
  }

  private arguments(workspace: string, fileSizeLimit: number, command: string, folders?: TScopeFolders): string[] {
    const runAs = this.runAs;
    const hasCgroup = this.options.cgroups?.manager !== undefined;
    // As root, no user namespace: bubblewrap would map the command's uid back to root. setpriv
    // below makes it a real unprivileged user instead. As anyone else, the user namespace is what
    // lets bubblewrap work at all, and nested ones are refused where bubblewrap can do that.
    const namespaces = runAs
      ? ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
      : ["--unshare-all", "--unshare-user", ...(this.features.disableUserns ? ["--disable-userns"] : [])];
    const tmp = [...(this.features.perms ? ["--perms", "1777"] : []), ...(this.features.size ? ["--size", String(this.tmpBytes)] : []), "--tmpfs", "/tmp"];
    const limits = [
      PRLIMIT,
      `--cpu=${this.options.cpuSeconds}`,
      `--fsize=${fileSizeLimit}`,
      "--core=0",
      // Without a cgroup these per-process limits are the fallback (see `describe`).
      ...(hasCgroup ? [] : [`--as=${this.options.memoryMegabytes * MEBIBYTE}`, `--nproc=${this.maxProcesses}`]),
      "--",
    ];
    const drop = runAs ? [SETPRIV, `--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"] : [];
    return [
      ...namespaces,
      "--die-with-parent",
      "--new-session",
      ...this.system,
      "--proc", "/proc",
      "--dev", "/dev",
      ...tmp,
      ...(folders
        ? ["--bind-fd", String(SCOPE_ROOT_FD), "/workspace", ...(folders.shared ? ["--ro-bind-fd", String(SCOPE_SHARED_FD), `/workspace/${folders.sharedAt}`] : [])]
        : ["--bind", workspace, "/workspace"]),
      "--chdir", "/workspace",
      "--setenv", "HOME", "/workspace",
      "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
      "--setenv", "LANG", "C.UTF-8",
      "--setenv", "TMPDIR", "/tmp",
      ...limits,
      ...drop,
      "/bin/sh", "-c", command,
    ];
  }

  private async execute(options: TRunCommandOptions, workspace: string, fileSizeLimit: number, cgroup: TCommandCgroup | undefined, folders: TScopeFolders | undefined, quota: TQuotaTicket): Promise<TOutcome> {
    // The shell waits on fd 3 until the cgroup has it, then becomes bwrap: bwrap and everything it
    // starts are in the cgroup from their first instruction. A closed fd 3 means "do not start".
    // SIGXFSZ ignored (inherited by everything the command runs): a write past the file size limit
    // fails with "File too large" instead of killing the writer, so a shell over quota can go on
    // and delete files.
    // detached: the command gets its own process group, which the timeout kills as a whole.
    // An empty environment: nothing of the app's (keys, DATABASE_URL) reaches the command.
    const gateScript = `trap '' XFSZ; read -r _ <&3 && exec 3<&- && exec "$0" "$@"`;
    // A worker's folders arrive as descriptors 4 and 5 (see openScope).
    const scopeDescriptors: ("ignore" | number)[] = folders ? [folders.root.fd, folders.shared?.fd ?? "ignore"] : [];
    const stdio: ("pipe" | "ignore" | number)[] = ["pipe", "pipe", "pipe", "pipe", ...scopeDescriptors];
    const child = spawn("/bin/sh", ["-c", gateScript, this.bwrap, ...this.arguments(workspace, fileSizeLimit, options.command, folders)], {
      env: {} as NodeJS.ProcessEnv,
      detached: true,
      stdio,
    }) as ChildProcessByStdio<Writable, Readable, Readable>;
    const exited = new Promise<number | null>((resolve) => {
      child.on("error", () => resolve(127));
      child.on("close", (code) => resolve(code));
    });
    // Start and end of each stream are kept; the middle of a flood of output is dropped.
    const quarter = Math.floor(this.options.maxOutputBytes / 4);
    const stdout = new HeadTailBuffer(quarter, quarter);
    const stderr = new HeadTailBuffer(quarter, quarter);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const gate = child.stdio[3] as Writable;
    gate.on("error", () => {});
    child.stdin.on("error", () => {});
    const kill = () => {
      if (child.pid) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    };
    if (cgroup && child.pid) {
      try {
        await cgroup.join(child.pid);
      } catch (error) {
        gate.destroy();
        kill();
        await exited;
        throw new AppError("unavailable", `The sandbox could not place the command in its cgroup (${(error as Error).message}).`, { cause: error });
      }
    }
    // Before the command starts: the quota watch may stop it from the first instruction on, and a
    // run stopped (or timed out) while the sandbox was being set up never starts it at all (an
    // abort listener added after the signal fired would never be called).
    quota.attach(kill, exited);
    options.signal?.addEventListener("abort", kill, { once: true });
    if (options.signal?.aborted) {
      gate.destroy();
      kill();
    } else {
      gate.end("go\n");
    }
    child.stdin.end(options.stdin ?? "");

    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const exitCode = await exited;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
    return {
      exitCode: timedOut ? null : exitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut,
      truncated: stdout.dropped + stderr.dropped > 0,
    };
  }
}

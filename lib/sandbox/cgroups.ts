import { randomBytes } from "node:crypto";
import { constants as FS, accessSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { environment } from "@/lib/config/environment";

/**
 * Whole-command limits with cgroups. Each command gets a cgroup of its own, with a memory limit
 * (all its processes, page cache and its in-memory /tmp together) and a process limit, and the
 * command is placed in it before it starts, so nothing it forks escapes. ulimits alone cannot do
 * this: they bound each process, and a command is as many processes as it likes.
 *
 * Where the cgroups go:
 * - cgroup v1 (memory and pids hierarchies): below the app's own group in each (v1 allows processes
 *   in inner groups). Needs write access there: root, or groups an administrator handed over.
 * - cgroup v2: a group that holds no processes and that we may manage: `XCLAW_SANDBOX_CGROUP`, or
 *   the parent of the app's own group when that parent is delegated to the app's user (systemd
 *   `Delegate=yes`, `DelegateSubgroup=app`), or when the launcher prepared it
 *   (`prepareCgroupDelegation`). The sandboxes live in `<that group>/xclaw-sandboxes/cmd-…`.
 *
 * Without either, the sandbox falls back to per-process rlimits and says so (see runtime.ts).
 */
export type TCgroupLimits = { memoryBytes: number; maxProcesses: number };
export type TCgroupReport = { outOfMemory: boolean; processLimitReached: boolean; peakProcesses?: number };

export interface TCommandCgroup {
  /** Moves a process into the cgroup; whatever it starts afterwards is in it too. */
  join(pid: number): Promise<void>;
  /** Which limits the kernel had to enforce while the command ran. */
  report(): Promise<TCgroupReport>;
  /** Kills anything still in the cgroup and removes it. */
  remove(): Promise<void>;
}

export interface TCgroupManager {
  readonly version: "v1" | "v2";
  /** Where the command cgroups are made, for the start log. */
  readonly location: string;
  create(limits: TCgroupLimits): Promise<TCommandCgroup>;
}

export type TCgroupDetection = { manager: TCgroupManager; reason?: undefined } | { manager?: undefined; reason: string };

/** What detection reads from /proc; tests pass their own to describe a made-up cgroup tree. */
export type TCgroupSystem = { mountinfo: string; cgroup: string; uid: number; sandboxCgroup?: string };

const SANDBOXES = "xclaw-sandboxes";
const APP = "app";

export function readCgroupSystem(): TCgroupSystem {
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  return { mountinfo: read("/proc/self/mountinfo"), cgroup: read("/proc/self/cgroup"), uid: process.getuid?.() ?? -1, sandboxCgroup: environment().XCLAW_SANDBOX_CGROUP };
}

type TMount = { root: string; point: string; type: string; options: string[] };

function unescapeMountPath(value: string): string {
  return value.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function parseMountinfo(text: string): TMount[] {
  const mounts: TMount[] = [];
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [type, , superOptions = ""] = right.split(" ");
    if (fields.length < 6 || !type) continue;
    mounts.push({ root: unescapeMountPath(fields[3]!), point: unescapeMountPath(fields[4]!), type, options: [...fields[5]!.split(","), ...superOptions.split(",")] });
  }
  return mounts;
}

/** The app's group for a v1 controller ("memory") or v2 (""), as a path in the hierarchy. */
function ownGroup(cgroupFile: string, controller: string): string | undefined {
  for (const line of cgroupFile.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const controllers = match[1]!.split(",");
    if (controller === "" ? match[1] === "" : controllers.includes(controller)) return match[2];
  }
  return undefined;
}

/** Where a group of the hierarchy is in this process's view of the filesystem. */
function groupDirectory(mount: TMount, group: string): string | undefined {
  // resolve, not join: the root group "/" must come out as the mount point itself, without a slash.
  if (mount.root === "/") return path.resolve(mount.point, `.${group}`);
  if (group === mount.root || group.startsWith(mount.root + "/")) return path.resolve(mount.point, `.${group.slice(mount.root.length)}`);
  return undefined;
}

function readLines(file: string): string[] {
  return readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
}

function counter(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
}

async function readOptional(file: string): Promise<string> {
  return readFile(file, "utf8").catch(() => "");
}

/** What a command's cgroup counted; v1 keeps the memory counters in memory.oom_control, v2 in memory.events. */
async function readReport(files: { memoryEvents: string; pidsDirectory: string }): Promise<TCgroupReport> {
  const peak = Number((await readOptional(path.join(files.pidsDirectory, "pids.peak"))).trim());
  return {
    outOfMemory: counter(await readOptional(files.memoryEvents), "oom_kill") > 0,
    processLimitReached: counter(await readOptional(path.join(files.pidsDirectory, "pids.events")), "max") > 0,
    peakProcesses: Number.isFinite(peak) && peak > 0 ? peak : undefined,
  };
}

/** Kills what is left in a cgroup (normally nothing: the PID namespace dies with the command) and removes it. */
async function emptyAndRemove(directories: string[], procsFile: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const pids = (await readOptional(procsFile)).split(/\s+/).filter(Boolean).map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    const results = await Promise.all(directories.map((directory) => rmdir(directory).then(() => true, (error: NodeJS.ErrnoException) => error.code === "ENOENT")));
    if (results.every(Boolean)) return;
    // Exiting processes leave the group a moment after they are killed.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`could not remove the command cgroup ${directories.join(", ")}`);
}

function commandName(): string {
  return `cmd-${process.pid}-${randomBytes(6).toString("hex")}`;
}

class CgroupV1Manager implements TCgroupManager {
  readonly version = "v1" as const;
  constructor(
    private readonly memoryParent: string,
    private readonly pidsParent: string,
  ) {}

  get location(): string {
    return `${this.memoryParent}, ${this.pidsParent}`;
  }

  async create(limits: TCgroupLimits): Promise<TCommandCgroup> {
    const name = commandName();
    const memory = path.join(this.memoryParent, name);
    const pids = path.join(this.pidsParent, name);
    await mkdir(memory);
    try {
      await mkdir(pids);
      await writeFile(path.join(memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
      // With swap accounting, swap counts too; the limit must not be below the memory limit.
      await writeFile(path.join(memory, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      await writeFile(path.join(pids, "pids.max"), String(limits.maxProcesses));
    } catch (error) {
      await rmdir(memory).catch(() => {});
      await rmdir(pids).catch(() => {});
      throw error;
    }
    return {
      join: async (pid) => {
        await writeFile(path.join(memory, "cgroup.procs"), String(pid));
        await writeFile(path.join(pids, "cgroup.procs"), String(pid));
      },
      report: () => readReport({ memoryEvents: path.join(memory, "memory.oom_control"), pidsDirectory: pids }),
      remove: () => emptyAndRemove([memory, pids], path.join(pids, "cgroup.procs")),
    };
  }
}

class CgroupV2Manager implements TCgroupManager {
  readonly version = "v2" as const;
  constructor(readonly location: string) {}

  async create(limits: TCgroupLimits): Promise<TCommandCgroup> {
    const directory = path.join(this.location, commandName());
    await mkdir(directory);
    try {
      await writeFile(path.join(directory, "memory.max"), String(limits.memoryBytes));
      await writeFile(path.join(directory, "memory.swap.max"), "0").catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      await writeFile(path.join(directory, "pids.max"), String(limits.maxProcesses));
    } catch (error) {
      await rmdir(directory).catch(() => {});
      throw error;
    }
    return {
      join: (pid) => writeFile(path.join(directory, "cgroup.procs"), String(pid)),
      report: () => readReport({ memoryEvents: path.join(directory, "memory.events"), pidsDirectory: directory }),
      remove: async () => {
        // cgroup.kill (Linux 5.14+) kills every process in the group at once.
        await writeFile(path.join(directory, "cgroup.kill"), "1").catch(() => {});
        await emptyAndRemove([directory], path.join(directory, "cgroup.procs"));
      },
    };
  }
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}` : (error as Error).message;
}

/** Makes `parent/<SANDBOXES>` and checks a command group can be made in it, or says why not. */
function probeV1(controller: "memory" | "pids", mounts: TMount[], system: TCgroupSystem): string | { parent: string } {
  const mount = mounts.find((candidate) => candidate.type === "cgroup" && candidate.options.includes(controller));
  const group = ownGroup(system.cgroup, controller);
  if (!mount || group === undefined) return `no cgroup v1 ${controller} controller`;
  const own = groupDirectory(mount, group);
  if (!own) return `the ${controller} cgroup of this process is outside ${mount.point}`;
  const parent = path.join(own, SANDBOXES);
  const probe = path.join(parent, `probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(parent, { recursive: true });
    mkdirSync(probe);
    try {
      accessSync(path.join(probe, controller === "memory" ? "memory.limit_in_bytes" : "pids.max"), FS.W_OK);
    } finally {
      rmdirSync(probe);
    }
  } catch (error) {
    return `cannot create cgroups in ${own} (${errorText(error)})`;
  }
  return { parent };
}

function controllersOf(directory: string): string[] {
  try {
    return readLines(path.join(directory, "cgroup.controllers"));
  } catch {
    return [];
  }
}

function enableControllers(directory: string): void {
  const enabled = readLines(path.join(directory, "cgroup.subtree_control"));
  const missing = ["memory", "pids"].filter((controller) => !enabled.includes(controller));
  if (missing.length) writeFileSync(path.join(directory, "cgroup.subtree_control"), missing.map((controller) => `+${controller}`).join(" "));
}

function probeV2(mounts: TMount[], system: TCgroupSystem): string | { parent: string } {
  const mount = mounts.find((candidate) => candidate.type === "cgroup2");
  const group = ownGroup(system.cgroup, "");
  if (!mount || group === undefined) return "no cgroup v2";
  const own = groupDirectory(mount, group);
  if (!own) return `the cgroup of this process is outside ${mount.point}`;
  let base: string;
  if (system.sandboxCgroup) {
    base = path.isAbsolute(system.sandboxCgroup) && system.sandboxCgroup.startsWith(mount.point) ? system.sandboxCgroup : path.join(mount.point, system.sandboxCgroup);
  } else {
    if (own === mount.point) return "the app is in the root cgroup; set XCLAW_SANDBOX_CGROUP to a group for the sandboxes";
    base = path.dirname(own);
    let ours = false;
    try {
      ours = statSync(path.join(base, SANDBOXES)).isDirectory();
    } catch {
      // not prepared by the launcher; maybe delegated to this (unprivileged) user
      ours = system.uid > 0 && statSync(base, { throwIfNoEntry: false })?.uid === system.uid;
    }
    if (!ours) return `no cgroup v2 group is delegated to the app (its group is ${own}; see "Shell sandbox limits" in README.md)`;
  }
  const controllers = controllersOf(base);
  if (!controllers.includes("memory") || !controllers.includes("pids")) return `the memory and pids controllers are not available in ${base}`;
  const parent = base.endsWith(`/${SANDBOXES}`) ? base : path.join(base, SANDBOXES);
  try {
    if (parent !== base) {
      enableControllers(base);
      mkdirSync(parent, { recursive: true });
    }
    enableControllers(parent);
  } catch (error) {
    return `cannot manage cgroups in ${base} (${errorText(error)})`;
  }
  return { parent };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Groups left behind by an app process that died mid-command (their commands died with it). */
function removeStaleGroups(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(?:cmd|probe)-(\d+)-/.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // still has processes, or not ours: leave it
    }
  }
}

/** Finds where command cgroups can be made: v2 when delegated, else v1, else nothing (with the reason). */
export function detectCgroups(system: TCgroupSystem = readCgroupSystem()): TCgroupDetection {
  const mounts = parseMountinfo(system.mountinfo);
  const v2 = probeV2(mounts, system);
  if (typeof v2 !== "string") {
    removeStaleGroups(v2.parent);
    return { manager: new CgroupV2Manager(v2.parent) };
  }
  const memory = probeV1("memory", mounts, system);
  const pids = probeV1("pids", mounts, system);
  if (typeof memory !== "string" && typeof pids !== "string") {
    removeStaleGroups(memory.parent);
    removeStaleGroups(pids.parent);
    return { manager: new CgroupV1Manager(memory.parent, pids.parent) };
  }
  const v1Reasons = [memory, pids].filter((reason): reason is string => typeof reason === "string");
  return { reason: `cgroup v2: ${v2}; cgroup v1: ${v1Reasons.join("; ")}` };
}

/**
 * For the launcher, before it starts anything: on cgroup v2, when the launcher runs in a systemd
 * service whose group is delegated to it (its user owns it and may write its control files) and
 * offers the memory and pids controllers, it moves every process of that group into `<group>/app` and prepares
 * `<group>/xclaw-sandboxes`. A v2 group can hand controllers to child groups only while it holds no
 * processes itself, so this move is what makes per-command cgroups possible under systemd with
 * `Delegate=yes` (systemd 254+ can do it itself with `DelegateSubgroup=app`). Returns what it did,
 * or undefined when there was nothing to do.
 */
export function prepareCgroupDelegation(system: TCgroupSystem = readCgroupSystem()): string | undefined {
  const mounts = parseMountinfo(system.mountinfo);
  const mount = mounts.find((candidate) => candidate.type === "cgroup2");
  const group = ownGroup(system.cgroup, "");
  if (!mount || group === undefined || system.sandboxCgroup) return undefined;
  const own = groupDirectory(mount, group);
  // Only a systemd service's own group: moving its processes is what delegation expects, whereas
  // a login session or a terminal's scope also holds processes that are not ours to move.
  if (!own || own === mount.point || !own.endsWith(".service")) return undefined;
  const controllers = controllersOf(own);
  if (!controllers.includes("memory") || !controllers.includes("pids")) return undefined;
  try {
    if (statSync(own).uid !== system.uid) return undefined;
    accessSync(path.join(own, "cgroup.procs"), FS.W_OK);
    accessSync(path.join(own, "cgroup.subtree_control"), FS.W_OK);
    const app = path.join(own, APP);
    mkdirSync(app, { recursive: true });
    for (const pid of readLines(path.join(own, "cgroup.procs"))) {
      try {
        writeFileSync(path.join(app, "cgroup.procs"), pid);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    enableControllers(own);
    mkdirSync(path.join(own, SANDBOXES), { recursive: true });
    enableControllers(path.join(own, SANDBOXES));
    return `moved the app into ${app} so that command cgroups can be made in ${path.join(own, SANDBOXES)}`;
  } catch (error) {
    return `could not prepare cgroup delegation in ${own} (${errorText(error)}); commands get per-process limits only`;
  }
}

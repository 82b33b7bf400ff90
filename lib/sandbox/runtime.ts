import path from "node:path";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { dataDirectory, environment } from "@/lib/config/environment";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { BubblewrapSandbox, findBubblewrap, missingSandboxTools, type TSandboxEnforcement } from "./bubblewrap-sandbox";
import { detectCgroups } from "./cgroups";
import { E2bSandbox, RemoteWorkspace } from "./e2b-sandbox";
import { ScopedWorkspace, writableFolder } from "./scoped-workspace";
import type { TSandbox, TWorkspaceScope } from "./types";
import { Workspace, type TWorkspaceFiles, type TWorkspaceLimits } from "./workspace-files";
import type { TWorkspaceOwner } from "./workspace-usage";

/**
 * The sandbox router: which sandbox runs commands (xclaw.yaml `sandbox.mode`) and where the file
 * tools read and write. With no usable sandbox there is no shell tool at all, and `reason` says
 * why so the UI can tell the user. Model-issued commands never run on the host.
 */
export type TSandboxRuntime = {
  mode: "bubblewrap" | "e2b" | "none";
  reason?: string;
  sandbox?: TSandbox;
  limits: TWorkspaceLimits;
  /** Bubblewrap only: which limits hold on this host and which do not (cgroups missing, old bwrap). */
  enforcement?: TSandboxEnforcement;
  /** With a scope (a worker's), only the scope's folders of the user's workspace. */
  workspaceFor(userId: string, sessionId: string, scope?: TWorkspaceScope): TWorkspaceFiles;
  /**
   * A folder of the user's local workspace for writing (a worker's deliveries, shared/<task>/),
   * opened without following links whatever the sandbox mode.
   */
  folderFor(userId: string, relative: string): TWorkspaceFiles;
};

const log = createLogger("sandbox");

export function workspaceRoot(userId: string): string {
  if (!/^[0-9a-f-]{36}$/.test(userId)) throw new Error("workspace owner must be a user id");
  return path.join(dataDirectory(), "workspaces", userId);
}

export function createSandboxRuntime(config: TBehaviourConfig, overrides: { e2b?: E2bSandbox } = {}): TSandboxRuntime {
  const limits: TWorkspaceLimits = {
    readExtensions: config.workspace.readExtensions.map((extension) => extension.toLowerCase()),
    writeExtensions: config.workspace.writeExtensions.map((extension) => extension.toLowerCase()),
    maxReadBytes: config.workspace.maxReadBytes,
    maxWriteBytes: config.workspace.maxWriteBytes,
    quotaBytes: config.workspace.quotaMiB * 1024 * 1024,
  };
  // When the app runs as root, sandboxed commands run as runAsUid/runAsGid, and whatever the file
  // tools create is given to that user so both sides can use it.
  const owner: TWorkspaceOwner | undefined = process.getuid?.() === 0 ? { uid: config.sandbox.runAsUid, gid: config.sandbox.runAsGid } : undefined;
  const local = (userId: string, _sessionId: string, scope?: TWorkspaceScope): TWorkspaceFiles =>
    scope ? new ScopedWorkspace(workspaceRoot(userId), scope, limits, owner) : new Workspace(workspaceRoot(userId), limits, { owner });
  const folderFor = (userId: string, relative: string) => writableFolder(workspaceRoot(userId), relative, limits, owner);
  const { mode } = config.sandbox;
  if (mode === "none") {
    return { mode: "none", reason: "The administrator turned the shell off (sandbox.mode: none).", limits, workspaceFor: local, folderFor };
  }
  if (mode === "e2b") {
    const { E2B_API_KEY, E2B_DOMAIN, E2B_API_URL } = environment();
    if (!overrides.e2b && !E2B_API_KEY && !E2B_DOMAIN && !E2B_API_URL) {
      return { mode: "none", reason: "sandbox.mode is e2b, but E2B_API_KEY / E2B_DOMAIN are not set.", limits, workspaceFor: local, folderFor };
    }
    const sandbox =
      overrides.e2b ??
      processE2bSandbox({ template: config.sandbox.e2b.template, idleMs: config.sandbox.e2b.idleMinutes * 60_000, maxOutputBytes: config.sandbox.maxOutputBytes });
    return {
      mode: "e2b",
      sandbox,
      limits,
      // A worker's session has a remote sandbox of its own, so a scope needs nothing more here.
      workspaceFor: (userId, sessionId) => new RemoteWorkspace(() => sandbox.sandboxFor(userId, sessionId), limits),
      folderFor,
    };
  }
  const bwrap = findBubblewrap();
  if (!bwrap) {
    return {
      mode: "none",
      reason: "No sandbox is available: bubblewrap is not installed (apt-get install bubblewrap), so the shell is off.",
      limits,
      workspaceFor: local,
      folderFor,
    };
  }
  const missing = missingSandboxTools();
  if (missing.length) {
    return { mode: "none", reason: `No sandbox is available: ${missing.join(" and ")} (util-linux) are missing, so the shell is off.`, limits, workspaceFor: local, folderFor };
  }
  const sandbox = new BubblewrapSandbox({
    workspaceRoot,
    maxOutputBytes: config.sandbox.maxOutputBytes,
    memoryMegabytes: config.sandbox.memoryMegabytes,
    cpuSeconds: config.sandbox.cpuSeconds,
    maxProcesses: config.sandbox.maxProcesses,
    tmpMegabytes: config.sandbox.tmpMegabytes,
    quotaBytes: limits.quotaBytes,
    runAs: owner,
    cgroups: detectCgroups(),
    bwrapPath: bwrap,
  });
  return { mode: "bubblewrap", sandbox, limits, enforcement: sandbox.enforcement, workspaceFor: local, folderFor };
}

/** One log line saying what the sandbox enforces here and, as a warning, what it cannot. */
export function logSandboxEnforcement(runtime: TSandboxRuntime): void {
  if (!runtime.enforcement) return;
  const { enforced, notEnforced } = runtime.enforcement;
  if (notEnforced.length) log.warn("sandbox limits are weaker on this host", { enforced, notEnforced });
  else log.info("sandbox limits", { enforced });
}

/**
 * The user's workspace folder on this machine, whatever the sandbox mode: where the files people
 * attach to chat messages are stored (with bubblewrap and without a sandbox, the file tools and
 * commands see the same folder).
 */
export function localWorkspace(userId: string, config = getBehaviourConfig()): Workspace {
  const runtime = sandboxRuntime(config);
  const owner: TWorkspaceOwner | undefined = process.getuid?.() === 0 ? { uid: config.sandbox.runAsUid, gid: config.sandbox.runAsGid } : undefined;
  return new Workspace(workspaceRoot(userId), runtime.limits, { owner });
}

/**
 * One E2B client per process and setting, whichever module graph asks: it keeps each session's
 * remote sandbox, and a session's run may start in the instrumentation graph (the chat's Node
 * route, jobs) and resume in a route handler's (an approval), which must find the same sandbox.
 */
function processE2bSandbox(options: { template: string; idleMs: number; maxOutputBytes: number }): E2bSandbox {
  return processSingleton(`sandbox.e2b:${JSON.stringify(options)}`, () => new E2bSandbox(options));
}

let cached: { config: TBehaviourConfig; runtime: TSandboxRuntime } | undefined;

export function sandboxRuntime(config = getBehaviourConfig()): TSandboxRuntime {
  if (cached?.config !== config) {
    cached = { config, runtime: createSandboxRuntime(config) };
    logSandboxEnforcement(cached.runtime);
  }
  return cached.runtime;
}

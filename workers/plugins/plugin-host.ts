import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { verifyBundleFolder } from "../../lib/bundles/bundle-hash";
import { environment } from "../../lib/config/environment";
import { guardedFetch } from "../../lib/net/guarded-fetch";
import { defaultPort, isOnAllowList, parseAllowList } from "../../lib/net/url-guard";
import {
  specHashOf,
  ZWorkspaceRequest,
  type THostToPlugin,
  type TPluginRuntimeStatus,
  type TPluginSpec,
  type TPluginState,
  type TPluginToHost,
  type TToolCallResponse,
  type TToolDeclaration,
  type TWorkspaceAccess,
  type TWorkspaceAnswer,
  type TWorkspaceRequest,
} from "../../lib/plugins/host-protocol";
import { validateManifest } from "../../lib/plugins/manifest";

/**
 * The plugin host: one OS process per enabled plugin, supervised here. A plugin that crashes is
 * started again (with a growing pause) and marked failed once it has crashed `maxCrashes` times
 * within ten minutes; a call that gets no answer within `callTimeoutMs`, or a process that stops
 * answering pings, counts as a hang: the process is killed and handled like a crash. Other plugins
 * never notice. Each process starts with an empty environment; it gets its configuration and only
 * its declared secrets over IPC, and its requests come back here, where they are checked against
 * its declared hosts and sent through the SSRF guard.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PROCESS_FILE = path.join(ROOT, "workers", "plugins", "plugin-process.ts");
const TSX_LOADER = pathToFileURL(path.join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const START_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 20_000;
const CRASH_WINDOW_MS = 10 * 60_000;
const PING_INTERVAL_MS = 15_000;
const PING_TIMEOUT_MS = 10_000;
const MAX_FETCH_BYTES = 5 * 1024 * 1024;

export type THostLogger = { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void; error(message: string, fields?: Record<string, unknown>): void };

/** Carries out a plugin's workspace request for the caller (the app does it: see host-protocol.ts). */
export type TWorkspaceHandler = (request: TWorkspaceRequest) => Promise<TWorkspaceAnswer>;

type TPendingCall = { resolve: (response: TToolCallResponse) => void; timer: NodeJS.Timeout; workspace: TWorkspaceAccess; onWorkspace?: TWorkspaceHandler };

type TManaged = {
  spec: TPluginSpec;
  specHash: string;
  status: TPluginRuntimeStatus;
  lastError: string | null;
  tools: TToolDeclaration[];
  services: string[];
  crashes: number[];
  child?: ChildProcess;
  /** Settles when the current start attempt has finished (ready or not). */
  starting?: Promise<void>;
  pending: Map<number, TPendingCall>;
  restartTimer?: NodeJS.Timeout;
  pingTimer?: NodeJS.Timeout;
  stopping: boolean;
  /** Why the host killed the current process (a hang), for the crash report. */
  killReason?: string;
};

/** The environment of a plugin process: nothing of the app's, only what Node needs to run. */
function pluginEnvironment(): NodeJS.ProcessEnv {
  const { PATH, LANG, TZ, NODE_ENV } = environment();
  return Object.fromEntries(Object.entries({ PATH, LANG, TZ, NODE_ENV }).filter(([, value]) => value)) as NodeJS.ProcessEnv;
}

export class PluginHost {
  private readonly plugins = new Map<string, TManaged>();
  private nextCallId = 1;
  private nextPingId = 1;

  constructor(private readonly log: THostLogger) {}

  list(): TPluginState[] {
    return [...this.plugins.values()].map((managed) => this.state(managed));
  }

  private state(managed: TManaged): TPluginState {
    return { id: managed.spec.id, status: managed.status, lastError: managed.lastError, tools: managed.tools, services: managed.services, crashes: managed.crashes.length, specHash: managed.specHash };
  }

  /** Starts the plugin (or restarts it when its spec changed) and waits for the outcome. */
  async load(spec: TPluginSpec): Promise<TPluginState> {
    const specHash = specHashOf(spec);
    const existing = this.plugins.get(spec.id);
    if (existing && existing.specHash === specHash && existing.status !== "stopped") {
      await existing.starting;
      return this.state(existing);
    }
    if (existing) await this.unload(spec.id);
    const managed: TManaged = { spec, specHash, status: "starting", lastError: null, tools: [], services: [], crashes: [], pending: new Map(), stopping: false };
    this.plugins.set(spec.id, managed);
    managed.starting = this.start(managed);
    await managed.starting;
    return this.state(managed);
  }

  private fail(managed: TManaged, reason: string) {
    managed.status = "failed";
    managed.lastError = reason;
    managed.tools = [];
    this.log.warn("plugin failed", { plugin: managed.spec.id, reason });
  }

  private async start(managed: TManaged): Promise<void> {
    const { spec } = managed;
    try {
      validateManifest(spec.manifest);
      if (spec.sha256) await verifyBundleFolder(spec.directory, spec.sha256);
    } catch (error) {
      return this.fail(managed, `Not started: ${(error as Error).message}.`);
    }
    const child = spawn(process.execPath, ["--import", TSX_LOADER, PROCESS_FILE], {
      cwd: spec.directory,
      env: pluginEnvironment(),
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    managed.child = child;
    const prefix = (stream: NodeJS.ReadableStream | null, level: "info" | "warn") =>
      stream?.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) this.log[level]("plugin output", { plugin: spec.id, line: line.slice(0, 1_000) });
      });
    prefix(child.stdout, "info");
    prefix(child.stderr, "warn");

    await new Promise<void>((resolve) => {
      let settled = false;
      const settle = () => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        if (managed.child !== child) return settle();
        this.log.warn("plugin did not become ready in time", { plugin: spec.id });
        managed.killReason = `It did not finish loading within ${START_TIMEOUT_MS / 1000} s.`;
        child.kill("SIGKILL");
        settle();
      }, START_TIMEOUT_MS);
      child.on("message", (message: TPluginToHost) => this.onMessage(managed, child, message, settle));
      child.on("exit", (code, signal) => {
        settle();
        this.onExit(managed, child, code, signal);
      });
      child.on("error", (error) => {
        managed.lastError = `It could not be started: ${error.message}.`;
        settle();
      });
      const init: THostToPlugin = { type: "init", id: spec.id, directory: spec.directory, entry: spec.entry, manifest: spec.manifest, config: spec.config, secrets: spec.secrets };
      child.send(init);
    });
  }

  private onMessage(managed: TManaged, child: ChildProcess, message: TPluginToHost, settle: () => void) {
    if (managed.child !== child) return;
    switch (message.type) {
      case "ready":
        managed.status = "running";
        managed.tools = message.tools;
        managed.services = message.services;
        this.log.info("plugin loaded", { plugin: managed.spec.id, tools: message.tools.map((tool) => tool.name), services: message.services });
        this.schedulePing(managed, child);
        settle();
        break;
      case "failed":
        // A plugin that cannot load will not load on a second try either: no restarts.
        managed.stopping = true;
        this.fail(managed, `It failed to load: ${message.error}`);
        settle();
        break;
      case "result": {
        const pending = managed.pending.get(message.callId);
        if (!pending) break;
        managed.pending.delete(message.callId);
        clearTimeout(pending.timer);
        pending.resolve({ text: message.text, isError: message.isError });
        break;
      }
      case "fetch":
        void this.fetchFor(managed, child, message);
        break;
      case "workspace":
        void this.workspaceFor(managed, child, message);
        break;
      case "log":
        this.log[message.level]("plugin log", { plugin: managed.spec.id, message: message.message });
        break;
      case "pong":
        break;
      case "stopped":
        break;
    }
  }

  private schedulePing(managed: TManaged, child: ChildProcess) {
    clearInterval(managed.pingTimer);
    managed.pingTimer = setInterval(() => {
      if (managed.child !== child || !child.connected) return clearInterval(managed.pingTimer);
      const pingId = this.nextPingId++;
      const timer = setTimeout(() => this.kill(managed, child, `It stopped answering (no reply to a health check within ${PING_TIMEOUT_MS / 1000} s).`), PING_TIMEOUT_MS);
      const onPong = (message: TPluginToHost) => {
        if (message.type === "pong" && message.pingId === pingId) {
          clearTimeout(timer);
          child.off("message", onPong);
        }
      };
      child.on("message", onPong);
      child.send({ type: "ping", pingId } satisfies THostToPlugin);
    }, PING_INTERVAL_MS);
    managed.pingTimer.unref();
  }

  /** A hung plugin is killed; onExit then treats it as a crash (and restarts it or marks it failed). */
  private kill(managed: TManaged, child: ChildProcess, reason: string) {
    if (managed.child !== child || child.exitCode !== null || child.signalCode !== null) return;
    managed.killReason = reason;
    this.log.warn("killing a hung plugin", { plugin: managed.spec.id, reason });
    child.kill("SIGKILL");
  }

  private onExit(managed: TManaged, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null) {
    if (managed.child !== child) return;
    clearInterval(managed.pingTimer);
    managed.child = undefined;
    const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
    for (const [callId, pending] of managed.pending) {
      clearTimeout(pending.timer);
      pending.resolve({ text: `The plugin ${managed.spec.id} stopped while running this call (it ${how}); the call may or may not have had an effect.`, isError: true });
      managed.pending.delete(callId);
    }
    if (managed.stopping || managed.status === "failed") {
      if (managed.status !== "failed") managed.status = "stopped";
      return;
    }
    const now = Date.now();
    managed.crashes = [...managed.crashes.filter((time) => time > now - CRASH_WINDOW_MS), now];
    const reason = managed.killReason ?? `It ${how}.`;
    managed.killReason = undefined;
    managed.tools = [];
    if (managed.crashes.length >= managed.spec.maxCrashes) {
      return this.fail(managed, `Failed after ${managed.crashes.length} crashes within ${CRASH_WINDOW_MS / 60_000} minutes; last: ${reason} Fix it and enable it again.`);
    }
    managed.status = "restarting";
    managed.lastError = reason;
    const delay = Math.min(30_000, 250 * 2 ** (managed.crashes.length - 1));
    this.log.warn("plugin crashed; restarting", { plugin: managed.spec.id, reason, delayMs: delay, crashes: managed.crashes.length });
    managed.restartTimer = setTimeout(() => {
      if (managed.stopping || this.plugins.get(managed.spec.id) !== managed) return;
      managed.starting = this.start(managed);
    }, delay);
  }

  private async fetchFor(managed: TManaged, child: ChildProcess, message: Extract<TPluginToHost, { type: "fetch" }>) {
    const reply = (answer: THostToPlugin) => {
      if (child.connected) child.send(answer);
    };
    try {
      // Checked before any DNS lookup: a host name can itself carry data to whoever runs its DNS.
      const target = new URL(message.url);
      const port = target.port ? Number(target.port) : defaultPort(target.protocol);
      if (!isOnAllowList(parseAllowList(managed.spec.allowedHosts), target.hostname, port)) {
        throw new Error(`${target.origin} is not one of the hosts this plugin declares (${managed.spec.allowedHosts.join(", ") || "none"})`);
      }
      const response = await guardedFetch(message.url, {
        method: message.method,
        headers: message.headers,
        body: message.body === null ? undefined : Buffer.from(message.body, "base64"),
        allowedHosts: managed.spec.allowedHosts,
        allowedPrivateHosts: managed.spec.allowedPrivateHosts,
        timeoutMs: Math.min(managed.spec.callTimeoutMs, 60_000),
        maxResponseBytes: MAX_FETCH_BYTES,
      });
      const body = Buffer.from(await response.arrayBuffer()).toString("base64");
      reply({ type: "fetch-result", fetchId: message.fetchId, ok: true, status: response.status, statusText: response.statusText, headers: [...response.headers], body });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.log.warn("plugin request refused or failed", { plugin: managed.spec.id, url: message.url.slice(0, 200), error: text });
      reply({ type: "fetch-result", fetchId: message.fetchId, ok: false, error: `Request to ${safeOrigin(message.url)} refused or failed: ${text}` });
    }
  }

  /**
   * A plugin's workspace request, allowed only within one of its calls and within what that call
   * was granted (the app checks again when it carries it out: the host is not the only guard).
   */
  private async workspaceFor(managed: TManaged, child: ChildProcess, message: Extract<TPluginToHost, { type: "workspace" }>) {
    const reply = (answer: TWorkspaceAnswer) => {
      if (child.connected) child.send({ type: "workspace-result", requestId: message.requestId, answer } satisfies THostToPlugin);
    };
    const pending = managed.pending.get(message.callId);
    const parsed = ZWorkspaceRequest.safeParse(message.request);
    if (!pending || !parsed.success) return reply({ ok: false, error: "Workspace requests are only possible while one of this plugin's tools is being called." });
    const request = parsed.data;
    const refusal = workspaceRefusal(managed.spec, pending.workspace, request);
    if (refusal || !pending.onWorkspace) {
      this.log.warn("plugin workspace request refused", { plugin: managed.spec.id, op: request.op, granted: pending.workspace });
      return reply({ ok: false, error: refusal ?? "This call has no workspace." });
    }
    try {
      reply(await pending.onWorkspace(request));
    } catch (error) {
      reply({ ok: false, error: `The workspace request failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  async call(
    id: string,
    tool: string,
    input: unknown,
    context: { userId: string; sessionId: string },
    signal?: AbortSignal,
    workspace: { access: TWorkspaceAccess; onWorkspace?: TWorkspaceHandler } = { access: "none" },
  ): Promise<TToolCallResponse> {
    const managed = this.plugins.get(id);
    if (!managed) return { text: `The plugin ${id} is not enabled.`, isError: true };
    if (managed.status === "starting" || managed.status === "restarting") {
      await managed.starting;
      // A restart may still be waiting for its pause: give it one more chance.
      if (managed.status === "restarting") await new Promise((resolve) => setTimeout(resolve, 1_000));
      await managed.starting;
    }
    const child = managed.child;
    if (managed.status !== "running" || !child?.connected) {
      return { text: `The plugin ${id} is not running (${managed.status}${managed.lastError ? `: ${managed.lastError}` : ""}).`, isError: true };
    }
    const callId = this.nextCallId++;
    return new Promise<TToolCallResponse>((resolve) => {
      const timer = setTimeout(() => {
        managed.pending.delete(callId);
        resolve({ text: `The plugin ${id} did not answer within ${managed.spec.callTimeoutMs / 1000} s; it was restarted.`, isError: true });
        this.kill(managed, child, `A call to ${tool} got no answer within ${managed.spec.callTimeoutMs / 1000} s.`);
      }, managed.spec.callTimeoutMs);
      managed.pending.set(callId, { resolve, timer, workspace: workspace.access, onWorkspace: workspace.onWorkspace });
      signal?.addEventListener("abort", () => child.connected && child.send({ type: "cancel", callId } satisfies THostToPlugin), { once: true });
      child.send({ type: "call", callId, tool, input, context, workspace: workspace.access } satisfies THostToPlugin);
    });
  }

  /** Stops the plugin's services (once) and its process. */
  async unload(id: string): Promise<void> {
    const managed = this.plugins.get(id);
    if (!managed) return;
    this.plugins.delete(id);
    managed.stopping = true;
    clearTimeout(managed.restartTimer);
    clearInterval(managed.pingTimer);
    await managed.starting;
    const child = managed.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.connected) child.send({ type: "stop" } satisfies THostToPlugin);
    else child.kill("SIGTERM");
    const force = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(force);
    managed.status = "stopped";
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.plugins.keys()].map((id) => this.unload(id)));
  }
}

/** Why a workspace request is refused, or undefined: never more than the manifest declares, nor than the call was granted. */
function workspaceRefusal(spec: TPluginSpec, granted: TWorkspaceAccess, request: TWorkspaceRequest): string | undefined {
  const declared = (spec.manifest as { permissions?: { workspace?: TWorkspaceAccess } }).permissions?.workspace ?? "none";
  if (declared === "none") return `The plugin ${spec.id} does not declare workspace access (permissions.workspace); refused.`;
  if (granted === "none") return "This call was not given access to the workspace; refused.";
  if (request.op === "write" && (granted !== "write" || declared !== "write")) {
    return declared === "write"
      ? "Only tools whose risk is write, execute or external (which the approval policy checks) may write to the workspace; this one may only read. Refused."
      : `The plugin ${spec.id} may only read the workspace (permissions.workspace is read); refused.`;
  }
  return undefined;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "an invalid address";
  }
}

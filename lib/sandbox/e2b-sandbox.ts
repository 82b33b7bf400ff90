import path from "node:path";
import { environment } from "@/lib/config/environment";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { clipMiddle, type TCommandResult, type TRunCommandOptions, type TSandbox } from "./types";
import { looksBinary } from "./text-detection";
import type { TListEntry, TWorkspaceFiles, TWorkspaceLimits } from "./workspace-files";
import { assertExtension, normalizeWorkspacePath } from "./workspace-paths";

/**
 * Remote sandboxes through the e2b SDK, against E2B itself or any E2B-compatible service such as
 * CubeSandbox (KVM microVMs). One sandbox per chat session, created on first use and killed after
 * it has been idle for a while or when the session ends. The file tools work on the same remote
 * filesystem, so what a command writes there the agent can read, and the other way round.
 *
 * Only the small part of the SDK used here is described by TRemoteSandbox, so tests can stand in
 * for the SDK at exactly this boundary.
 */
const log = createLogger("e2b");
export const REMOTE_WORKDIR = "/home/user/workspace";

export type TRemoteSandbox = {
  sandboxId: string;
  commands: {
    run(command: string, options: { cwd?: string; timeoutMs?: number; envs?: Record<string, string> }): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  };
  files: {
    read(path: string, options?: { format?: "bytes" }): Promise<Uint8Array>;
    write(path: string, data: string): Promise<unknown>;
    list(path: string): Promise<{ name: string; type?: string; size?: number }[]>;
    remove(path: string): Promise<void>;
    makeDir(path: string): Promise<unknown>;
    exists(path: string): Promise<boolean>;
  };
  kill(): Promise<unknown>;
};

export type TRemoteSandboxFactory = (options: { template: string; sessionId: string; userId: string }) => Promise<TRemoteSandbox>;

/** The real factory: the e2b SDK, configured from E2B_API_KEY / E2B_DOMAIN / E2B_API_URL. */
export const e2bSdkFactory: TRemoteSandboxFactory = async ({ template, sessionId, userId }) => {
  const { Sandbox } = await import("e2b");
  const { E2B_API_KEY, E2B_DOMAIN, E2B_API_URL } = environment();
  const sandbox = await Sandbox.create(template, {
    apiKey: E2B_API_KEY,
    domain: E2B_DOMAIN,
    apiUrl: E2B_API_URL,
    metadata: { xclawSession: sessionId, xclawUser: userId },
  });
  return {
    sandboxId: sandbox.sandboxId,
    commands: {
      async run(command, options) {
        try {
          const result = await sandbox.commands.run(command, options);
          return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
        } catch (error) {
          // The SDK throws for a non-zero exit code; that is a result, not a failure.
          const result = error as { exitCode?: number; stdout?: string; stderr?: string };
          if (typeof result.exitCode === "number") return { exitCode: result.exitCode, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
          throw error;
        }
      },
    },
    files: {
      read: (file) => sandbox.files.read(file, { format: "bytes" }),
      write: (file, data) => sandbox.files.write(file, data),
      list: async (directory) => (await sandbox.files.list(directory)).map((entry) => ({ name: entry.name, type: String(entry.type), size: entry.size })),
      remove: (file) => sandbox.files.remove(file),
      makeDir: (directory) => sandbox.files.makeDir(directory),
      exists: (file) => sandbox.files.exists(file),
    },
    kill: () => sandbox.kill(),
  };
};

type TEntry = { sandbox: Promise<TRemoteSandbox>; userId: string; idleTimer?: NodeJS.Timeout };

export class E2bSandbox implements TSandbox {
  readonly mode = "e2b" as const;
  readonly hasPython = true;
  private readonly sessions = new Map<string, TEntry>();

  constructor(
    private readonly options: { template: string; idleMs: number; maxOutputBytes: number; factory?: TRemoteSandboxFactory },
  ) {}

  /** The session's sandbox, created lazily; each use pushes the idle deadline back. */
  sandboxFor(userId: string, sessionId: string): Promise<TRemoteSandbox> {
    let entry = this.sessions.get(sessionId);
    if (entry && entry.userId !== userId) throw new AppError("not_found", "No such session.");
    if (!entry) {
      const factory = this.options.factory ?? e2bSdkFactory;
      const sandbox = factory({ template: this.options.template, sessionId, userId }).then(async (created) => {
        await created.files.makeDir(REMOTE_WORKDIR).catch(() => {});
        return created;
      });
      sandbox.catch(() => this.sessions.delete(sessionId));
      entry = { sandbox, userId };
      this.sessions.set(sessionId, entry);
    }
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => void this.releaseSession(sessionId), this.options.idleMs);
    entry.idleTimer.unref?.();
    return entry.sandbox;
  }

  async releaseSession(sessionId: string): Promise<void> {
    const entry = this.sessions.get(sessionId);
    if (!entry) return;
    this.sessions.delete(sessionId);
    clearTimeout(entry.idleTimer);
    try {
      await (await entry.sandbox).kill();
    } catch (error) {
      log.warn("could not kill a remote sandbox", { sessionId, error });
    }
  }

  activeSessions(): string[] {
    return [...this.sessions.keys()];
  }

  async run(options: TRunCommandOptions): Promise<TCommandResult> {
    const sandbox = await this.sandboxFor(options.userId, options.sessionId);
    const started = performance.now();
    const command = options.stdin === undefined ? options.command : `${options.command} <<'XCLAW_STDIN'\n${options.stdin}\nXCLAW_STDIN`;
    try {
      const result = await sandbox.commands.run(command, { cwd: REMOTE_WORKDIR, timeoutMs: options.timeoutMs });
      // Half the cap per stream, start and end kept, as the bubblewrap sandbox does.
      const half = Math.floor(this.options.maxOutputBytes / 2);
      const stdout = clipMiddle(result.stdout, half);
      const stderr = clipMiddle(result.stderr, half);
      return {
        exitCode: result.exitCode,
        stdout,
        stderr,
        timedOut: false,
        truncated: stdout !== result.stdout || stderr !== result.stderr,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      const timedOut = /timeout|deadline/i.test(String((error as Error).message));
      if (!timedOut) throw error;
      return { exitCode: null, stdout: "", stderr: "", timedOut: true, truncated: false, durationMs: Math.round(performance.now() - started) };
    }
  }
}

/** The file tools on a session's remote sandbox, with the same path, extension and size rules. */
export class RemoteWorkspace implements TWorkspaceFiles {
  constructor(
    private readonly sandbox: () => Promise<TRemoteSandbox>,
    private readonly limits: TWorkspaceLimits,
  ) {}

  private resolve(requested: string): { relative: string; absolute: string } {
    const relative = normalizeWorkspacePath(REMOTE_WORKDIR, requested);
    return { relative, absolute: path.posix.join(REMOTE_WORKDIR, relative) };
  }

  async readText(requested: string) {
    const { relative, absolute } = this.resolve(requested);
    assertExtension(relative, this.limits.readExtensions, "read");
    const sandbox = await this.sandbox();
    if (!(await sandbox.files.exists(absolute))) throw new AppError("not_found", `No such file: ${relative}`);
    const data = Buffer.from(await sandbox.files.read(absolute, { format: "bytes" }));
    if (data.length > this.limits.maxReadBytes) {
      throw new AppError("payload_too_large", `"${relative}" is ${data.length} bytes; the limit for reading is ${this.limits.maxReadBytes} bytes.`);
    }
    if (looksBinary(data)) throw new AppError("bad_request", `"${relative}" is a binary file; only text files can be read.`);
    return { relative, text: data.toString("utf8"), bytes: data.length };
  }

  async readTextIfExists(requested: string) {
    try {
      return (await this.readText(requested)).text;
    } catch (error) {
      if ((error as AppError).code === "not_found") return undefined;
      throw error;
    }
  }

  async writeText(requested: string, text: string) {
    const { relative, absolute } = this.resolve(requested);
    assertExtension(relative, this.limits.writeExtensions, "write");
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > this.limits.maxWriteBytes) throw new AppError("payload_too_large", `The content is ${bytes} bytes; the limit for writing is ${this.limits.maxWriteBytes} bytes.`);
    const sandbox = await this.sandbox();
    const created = !(await sandbox.files.exists(absolute));
    await sandbox.files.write(absolute, text);
    return { relative, bytes, created };
  }

  async deleteFile(requested: string) {
    const { relative, absolute } = this.resolve(requested);
    assertExtension(relative, this.limits.writeExtensions, "write");
    const sandbox = await this.sandbox();
    if (!(await sandbox.files.exists(absolute))) throw new AppError("not_found", `No such file: ${relative}`);
    await sandbox.files.remove(absolute);
    return relative;
  }

  async list(requested = ".") {
    const { relative, absolute } = this.resolve(requested);
    const sandbox = await this.sandbox();
    const entries: TListEntry[] = (await sandbox.files.list(absolute)).map((entry) => ({
      name: entry.name,
      type: entry.type === "dir" || entry.type === "directory" ? "directory" : entry.type === "file" ? "file" : "other",
      size: entry.size ?? 0,
    }));
    return { relative: relative || ".", entries: entries.sort((a, b) => a.name.localeCompare(b.name)) };
  }
}

import { spawn } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import type { TCommandResult, TRunCommandOptions, TSandbox } from "./types";

/**
 * Runs commands in bubblewrap: a fresh mount, PID, network, IPC and UTS namespace per command; the
 * system read-only (/usr and the merged-/usr links only — no /etc, /home, /root or /var), the
 * user's workspace read-write at /workspace, a private /tmp and /proc, no network at all (not
 * even the host's loopback, so the database and the app are out of reach). Memory, CPU time and
 * file size are limited with ulimit; a wall-clock timer kills the whole process group.
 */
export type TBubblewrapOptions = {
  workspaceRoot: (userId: string) => string;
  maxOutputBytes: number;
  memoryMegabytes: number;
  cpuSeconds: number;
  bwrapPath?: string;
};

const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"];
const READ_ONLY_ETC = ["/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/ssl/certs", "/etc/mime.types"];

export function findBubblewrap(): string | undefined {
  for (const candidate of ["/usr/bin/bwrap", "/usr/local/bin/bwrap"]) if (existsSync(candidate)) return candidate;
  return undefined;
}

function systemArguments(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const link of SYSTEM_LINKS) {
    if (!existsSync(link)) continue;
    const stats = lstatSync(link);
    if (stats.isSymbolicLink()) args.push("--symlink", readlinkSync(link), link);
    else args.push("--ro-bind", link, link);
  }
  for (const file of READ_ONLY_ETC) args.push("--ro-bind-try", file, file);
  return args;
}

export class BubblewrapSandbox implements TSandbox {
  readonly mode = "bubblewrap" as const;
  readonly hasPython = existsSync("/usr/bin/python3");
  private readonly system = systemArguments();

  constructor(private readonly options: TBubblewrapOptions) {}

  async releaseSession(): Promise<void> {}

  async run(options: TRunCommandOptions): Promise<TCommandResult> {
    const workspace = this.options.workspaceRoot(options.userId);
    await mkdir(workspace, { recursive: true, mode: 0o700 });
    const limits = [
      `ulimit -v ${this.options.memoryMegabytes * 1024}`,
      `ulimit -t ${this.options.cpuSeconds}`,
      `ulimit -f ${256 * 1024}`,
    ].join("; ");
    const args = [
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      ...this.system,
      "--proc", "/proc",
      "--dev", "/dev",
      "--tmpfs", "/tmp",
      "--bind", workspace, "/workspace",
      "--chdir", "/workspace",
      "--setenv", "HOME", "/workspace",
      "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
      "--setenv", "LANG", "C.UTF-8",
      "--setenv", "TMPDIR", "/tmp",
      "/bin/sh", "-c", `${limits} 2>/dev/null; exec /bin/sh -c "$1"`, "xclaw-shell", options.command,
    ];
    const started = performance.now();
    // detached: the command gets its own process group, which the timeout kills as a whole.
    // An empty environment: nothing of the app's (keys, DATABASE_URL) reaches the command.
    const child = spawn(this.options.bwrapPath ?? findBubblewrap() ?? "bwrap", args, {
      env: {} as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.stdin ?? "");
    const cap = this.options.maxOutputBytes;
    const collected = { stdout: [] as Buffer[], stderr: [] as Buffer[], stdoutBytes: 0, stderrBytes: 0, dropped: 0 };
    const collect = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      const used = collected.stdoutBytes + collected.stderrBytes;
      const room = Math.max(0, cap - used);
      if (room > 0) collected[stream].push(chunk.subarray(0, room));
      const kept = Math.min(room, chunk.length);
      collected[`${stream}Bytes`] += kept;
      collected.dropped += chunk.length - kept;
    };
    child.stdout.on("data", collect("stdout"));
    child.stderr.on("data", collect("stderr"));

    let timedOut = false;
    const kill = () => {
      if (child.pid) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener("abort", kill, { once: true });
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on("error", () => resolve(127));
      child.on("close", (code) => resolve(code));
    });
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
    const truncatedNote = collected.dropped ? `\n[output truncated: ${collected.dropped} more bytes were not kept]` : "";
    return {
      exitCode: timedOut ? null : exitCode,
      stdout: Buffer.concat(collected.stdout).toString("utf8") + truncatedNote,
      stderr: Buffer.concat(collected.stderr).toString("utf8"),
      timedOut,
      truncated: collected.dropped > 0,
      durationMs: Math.round(performance.now() - started),
    };
  }
}

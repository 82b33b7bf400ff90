import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * The terminal client as people run it: `bin/xclaw.mjs` (what `npx xclaw` starts) in a process of
 * its own, talking HTTP to the app, with its own home directory so the login it stores is the
 * test's. Answers go in through a plain pipe, as a script would give them.
 */
const bin = path.resolve(import.meta.dirname, "..", "..", "bin", "xclaw.mjs");

export type TXclawResult = { code: number | null; stdout: string; stderr: string };

const homes: string[] = [];

/** A fresh home (and XDG config directory) for one test's logins; removeXclawHomes() deletes them. */
export async function xclawHome(): Promise<{ home: string; configDirectory: string; env: NodeJS.ProcessEnv }> {
  const home = await mkdtemp(path.join(os.tmpdir(), "xclaw-home-"));
  homes.push(home);
  const configHome = path.join(home, "config");
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: configHome, NO_COLOR: "1" };
  delete env.XCLAW_URL;
  delete env.XCLAW_TOKEN;
  return { home, configDirectory: path.join(configHome, "xclaw"), env };
}

export async function removeXclawHomes(): Promise<void> {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
}

export type TXclawSession = {
  process: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  write(text: string): void;
  endInput(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export function startXclaw(args: string[], env: NodeJS.ProcessEnv): TXclawSession {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text) => child.stdin!.write(text),
    endInput: () => child.stdin!.end(),
    exited,
  };
}

/** Runs one command to its end; `input` is piped to its stdin (then closed). */
export async function runXclaw(args: string[], env: NodeJS.ProcessEnv, input = ""): Promise<TXclawResult> {
  const session = startXclaw(args, env);
  session.write(input);
  session.endInput();
  const { code } = await session.exited;
  return { code, stdout: session.stdout(), stderr: session.stderr() };
}

/** The session a command's output links to (…/chat/<id>). */
export function linkedSessionId(output: string): string {
  const match = /\/chat\/([0-9a-f-]{36})/.exec(output);
  if (!match) throw new Error(`no session link in:\n${output}`);
  return match[1]!;
}

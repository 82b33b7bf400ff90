/** What a sandbox does for the shell tools and bang commands, whichever runs it. */
export type TCommandResult = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
};

export type TRunCommandOptions = {
  userId: string;
  sessionId: string;
  command: string;
  /** Text passed on standard input (run_python sends its program this way). */
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
};

export interface TSandbox {
  readonly mode: "bubblewrap" | "e2b";
  readonly hasPython: boolean;
  run(options: TRunCommandOptions): Promise<TCommandResult>;
  /** Frees whatever belongs to a session (remote sandboxes); a no-op for local ones. */
  releaseSession(sessionId: string): Promise<void>;
}

export function formatCommandResult(result: TCommandResult): string {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout.trimEnd());
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.trimEnd()}`);
  if (result.timedOut) parts.push(`[killed: the command ran longer than the time limit]`);
  parts.push(`[exit code ${result.exitCode ?? "none"} · ${result.durationMs} ms]`);
  return parts.join("\n");
}

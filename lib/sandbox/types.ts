/** What a sandbox does for the shell tools and bang commands, whichever runs it. */
export type TCommandResult = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  /** Status lines from the sandbox: a limit the command ran into, the workspace quota. */
  notes?: string[];
};

/**
 * A worker's view of its owner's workspace (lib/agents): its scratch folder is its whole workspace
 * (read-write), and its task's delivery folder appears read-only as `shared/` inside it. Both are
 * paths relative to the owner's workspace, e.g. { root: "agents/coder/k3x9a1", shared: "shared/k3x9a1" }.
 */
export type TWorkspaceScope = { root: string; shared?: string };

export type TRunCommandOptions = {
  userId: string;
  sessionId: string;
  /** Only these folders of the user's workspace are visible to the command (a worker's). */
  scope?: TWorkspaceScope;
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

/**
 * The agent cuts every tool observation at 50,000 characters, keeping the start
 * (lib/agent/run-agent.ts). A command result must fit well below that on its own, or the cut would
 * fall on the status lines ("[killed: …]", "[exit code …]") that tell the model what happened.
 */
export const MAX_RESULT_CHARACTERS = 40_000;

function cutMarker(cut: number, unit: string): string {
  return `\n[output truncated: ${cut} ${unit} cut here]\n`;
}

/**
 * Keeps the start and the end of a text within `maxCharacters`, with a marker where the middle was
 * cut: errors and summaries usually come last, what a command was doing comes first.
 */
export function clipMiddle(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  // The marker for the largest possible cut is at least as long as the real one.
  const room = Math.max(0, maxCharacters - cutMarker(text.length, "characters").length);
  let headEnd = Math.ceil(room / 2);
  let tailStart = text.length - Math.floor(room / 2);
  // Never split a surrogate pair: half a character would become U+FFFD for the model.
  if (headEnd > 0 && /[\uD800-\uDBFF]/.test(text[headEnd - 1]!)) headEnd--;
  if (tailStart < text.length && /[\uDC00-\uDFFF]/.test(text[tailStart]!)) tailStart++;
  return text.slice(0, headEnd) + cutMarker(tailStart - headEnd, "characters") + text.slice(tailStart);
}

/**
 * A stream's output kept as its first and last bytes, so a flood of output costs bounded memory and
 * the end of it (where the error usually is) survives.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail = Buffer.alloc(0);
  dropped = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  push(chunk: Buffer): void {
    const take = Math.min(this.headLimit - this.headBytes, chunk.length);
    if (take > 0) {
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
    }
    const rest = chunk.subarray(Math.max(take, 0));
    if (rest.length === 0) return;
    const joined = Buffer.concat([this.tail, rest]);
    const excess = Math.max(0, joined.length - this.tailLimit);
    this.dropped += excess;
    // A copy, so the kept tail does not pin every chunk it was cut from.
    this.tail = excess ? Buffer.from(joined.subarray(excess)) : joined;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = this.tail.toString("utf8");
    return this.dropped ? head + cutMarker(this.dropped, "bytes") + tail : head + tail;
  }
}

/** Splits `room` characters between two texts: each gets what it needs, at least half when both need more. */
function share(room: number, first: number, second: number): [number, number] {
  if (first + second <= room) return [first, second];
  const half = Math.floor(room / 2);
  if (first <= half) return [first, room - first];
  if (second <= half) return [room - second, second];
  return [half, room - half];
}

/** The text the model and the chat see for a command, at most `maxCharacters` long, status lines last and always present. */
export function formatCommandResult(result: TCommandResult, maxCharacters = MAX_RESULT_CHARACTERS): string {
  const status = [...(result.notes ?? [])];
  if (result.timedOut) status.push(`[killed: the command ran longer than the time limit]`);
  status.push(`[exit code ${result.exitCode ?? "none"} · ${result.durationMs} ms]`);
  const statusText = status.join("\n");
  const stdout = result.stdout.trimEnd();
  const stderr = result.stderr.trimEnd();
  const stderrLabel = "[stderr]\n";
  // The separators: one newline after each body, and the label before stderr.
  const overhead = statusText.length + (stdout ? 1 : 0) + (stderr ? stderrLabel.length + 1 : 0);
  const [stdoutRoom, stderrRoom] = share(Math.max(0, maxCharacters - overhead), stdout.length, stderr.length);
  const parts: string[] = [];
  if (stdout) parts.push(clipMiddle(stdout, stdoutRoom));
  if (stderr) parts.push(stderrLabel + clipMiddle(stderr, stderrRoom));
  parts.push(statusText);
  return parts.join("\n");
}

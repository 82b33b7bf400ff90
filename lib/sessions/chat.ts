import type { UIMessageChunk } from "ai";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { forkSession } from "./fork-session";
import { rollbackSession } from "./rollback-session";
import { followRun, isRunActive, markInterruptedIfStale, startRun, type TStartRunOptions } from "./run-session";
import { getSessionOrThrow, stepKey } from "./sessions";
import { listSteps, parseStepKey, toStepSummary } from "./steps";
import { runBangCommand } from "./bang-command";
import { textReply, toUiChunks } from "./ui-stream";

/**
 * One chat message in, one UI message stream out: slash commands are answered without the model,
 * anything else starts a run. The client sends only the new text; history always comes from the
 * database.
 */
export const ZChatRequest = z.strictObject({
  sessionId: z.string({ error: "sessionId is required." }),
  text: z.string({ error: "text is required." }).trim().min(1, "The message is empty.").max(100_000, "The message is longer than 100,000 characters."),
});

type TRunOverrides = Pick<TStartRunOptions, "providers" | "tools">;

const HELP = [
  "Commands:",
  "- `/steps [n]` — the last n steps of this session (default 20)",
  "- `/rollback <step>` — drop that step and everything after it (e.g. `/rollback s0003`)",
  "- `/fork <step> [title]` — a new session with the history up to and including that step",
  "- `/resume` — continue an interrupted run",
  "- `!<command>` — run a shell command in your sandbox yourself, without the model (e.g. `!ls -la`)",
].join("\n");

export function formatSteps(steps: ReturnType<typeof toStepSummary>[]): string {
  if (!steps.length) return "No steps yet.";
  const rows = steps.map((step) => {
    const duration = step.durationMs === null ? "" : ` · ${step.durationMs} ms`;
    const tokens = step.inputTokens !== null ? ` · ${step.inputTokens}→${step.outputTokens} tokens` : "";
    const label = step.type === "tool_call" ? `tool ${step.name}` : step.type === "model_call" ? `model${step.model ? ` ${step.model}` : ""}` : step.type === "user_input" ? "user" : step.name;
    return `| ${step.key} | ${label} | ${step.status}${duration}${tokens} |`;
  });
  return ["| step | what | status |", "| --- | --- | --- |", ...rows].join("\n");
}

async function* runChunks(sessionId: string, signal?: AbortSignal): AsyncIterable<UIMessageChunk> {
  yield* toUiChunks(followRun(sessionId, signal));
}

export async function resumeSession(options: { userId: string; sessionId: string; signal?: AbortSignal } & TRunOverrides): Promise<AsyncIterable<UIMessageChunk>> {
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  if (session.status !== "FAILED" || session.statusReason !== "interrupted") {
    throw new AppError("conflict", "Only an interrupted run can be resumed. Send a new message instead.");
  }
  await startRun({ session, input: { kind: "resume" }, providers: options.providers, tools: options.tools });
  return runChunks(session.id, options.signal);
}

export async function handleChatMessage(
  options: { userId: string; sessionId: string; text: string; signal?: AbortSignal } & TRunOverrides,
): Promise<AsyncIterable<UIMessageChunk>> {
  const text = options.text.trim();
  if (!text.startsWith("/") && !text.startsWith("!")) {
    // The common case skips loading the session: the claim checks owner and state in one statement.
    if (!z.uuid().safeParse(options.sessionId).success) throw new AppError("not_found", "No such session.");
    const session = { id: options.sessionId, userId: options.userId };
    await startRun({ session, input: { kind: "message", text }, providers: options.providers, tools: options.tools });
    return runChunks(session.id, options.signal);
  }
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  if (text.startsWith("/")) {
    const [command = "", ...rest] = text.split(/\s+/);
    switch (command.toLowerCase()) {
      case "/steps": {
        const limit = Math.min(200, Math.max(1, Number(rest[0]) || 20));
        const steps = (await listSteps({ sessionId: session.id, userId: options.userId })).map(toStepSummary).slice(-limit);
        return textReply(formatSteps(steps));
      }
      case "/rollback": {
        if (!rest[0]) throw new AppError("bad_request", "Usage: /rollback <step>, e.g. /rollback s0003");
        const seq = parseStepKey(rest[0]);
        const { removed } = await rollbackSession({ userId: options.userId, sessionId: session.id, seq });
        return textReply(`Rolled back: removed ${removed} step${removed === 1 ? "" : "s"} from ${stepKey(seq)} on.`, [
          { type: "data-session", data: { action: "reload", sessionId: session.id } } as UIMessageChunk,
        ]);
      }
      case "/fork": {
        if (!rest[0]) throw new AppError("bad_request", "Usage: /fork <step> [title], e.g. /fork s0003 Try another way");
        const fork = await forkSession({ userId: options.userId, sessionId: session.id, seq: parseStepKey(rest[0]), title: rest.slice(1).join(" ") });
        return textReply(`Forked into “${fork.title}”.`, [{ type: "data-session", data: { action: "open", sessionId: fork.id } } as UIMessageChunk]);
      }
      case "/resume":
        return resumeSession({ userId: options.userId, sessionId: session.id, signal: options.signal, providers: options.providers, tools: options.tools });
      case "/help":
        return textReply(HELP);
      default:
        return textReply(`Unknown command ${command}.\n\n${HELP}`);
    }
  }
  return runBangCommand({ session, command: text.slice(1).trim() });
}

/** For a reconnecting tab: the live run of a session, or undefined when none is running here. */
export async function followSession(options: { userId: string; sessionId: string; signal?: AbortSignal }): Promise<AsyncIterable<UIMessageChunk> | undefined> {
  const session = await getSessionOrThrow(options);
  if (!isRunActive(session.id)) return undefined;
  return runChunks(session.id, options.signal);
}

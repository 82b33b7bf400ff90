import type { ChatSession } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { forkSession } from "@/lib/sessions/fork-session";
import { rollbackSession } from "@/lib/sessions/rollback-session";
import { stepKey } from "@/lib/sessions/sessions";
import { formatSkillsCommand } from "@/lib/skills/skill-tools";
import { asJson, type TCommandOutput } from "@/lib/sessions/step-codecs";
import { listStepRows } from "@/lib/sessions/step-rows";
import { parseStepKey, recordStep } from "@/lib/sessions/steps";
import type { TStepRow } from "@/lib/wire/chat";
import type { TMessageResult } from "./message-result";
import { resumeSession, type TStartOverrides } from "./resume-session";

/**
 * Slash commands, answered without the model. The command and its reply are stored as a COMMAND
 * step, so they are still there after a reload; the model never sees them.
 */
export const HELP = [
  "Commands:",
  "- `/steps [n]` — the last n steps of this session (default 20)",
  "- `/rollback <step>` — drop that step and everything after it (e.g. `/rollback s0003`)",
  "- `/fork <step> [title]` — a new session with the history up to and including that step",
  "- `/resume` — continue an interrupted run",
  "- `/skills` — the skills you can use (✅) and why others are unavailable (❌); `$name` in a message uses one",
  "- `!<command>` — run a shell command in your sandbox yourself, without the model (e.g. `!ls -la`)",
].join("\n");

export function formatSteps(steps: TStepRow[]): string {
  if (!steps.length) return "No steps yet.";
  const rows = steps.map((step) => {
    const duration = step.durationMs === null ? "" : ` · ${step.durationMs} ms`;
    const tokens = step.inputTokens !== null ? ` · ${step.inputTokens}→${step.outputTokens} tokens` : "";
    const label = step.type === "tool_call" ? `tool ${step.name}` : step.type === "model_call" ? `model${step.model ? ` ${step.model}` : ""}` : step.type === "user_input" ? "user" : step.name;
    // A delegate / debate / pipeline step: its workers' sessions, one trace tree.
    const workers = step.childSessions?.map((child) => `[${child.agent}](/chat/${child.sessionId}) ${child.status}`).join(", ");
    return `| ${step.key} | ${label}${workers ? ` → ${workers}` : ""} | ${step.status}${duration}${tokens} |`;
  });
  return ["| step | what | status |", "| --- | --- | --- |", ...rows].join("\n");
}

async function answer(session: ChatSession, text: string, output: TCommandOutput): Promise<TMessageResult> {
  await recordStep({ sessionId: session.id, userId: session.userId, type: "COMMAND", name: text.split(/\s+/)[0]!.toLowerCase(), status: "COMPLETED", input: asJson({ text }), output: asJson(output) });
  return { kind: "reply", text: output.reply, action: output.action };
}

/** Answers a slash command; a refused one (bad step id, busy session) throws and stores nothing. */
export async function runSlashCommand(session: ChatSession, text: string, options: TStartOverrides): Promise<TMessageResult> {
  const [command = "", ...rest] = text.split(/\s+/);
  switch (command.toLowerCase()) {
    case "/steps": {
      const limit = Math.min(200, Math.max(1, Number(rest[0]) || 20));
      const steps = (await listStepRows({ sessionId: session.id, userId: session.userId })).slice(-limit);
      return answer(session, text, { reply: formatSteps(steps) });
    }
    case "/rollback": {
      if (!rest[0]) throw new AppError("bad_request", "Usage: /rollback <step>, e.g. /rollback s0003");
      const seq = parseStepKey(rest[0]);
      const { removed } = await rollbackSession({ userId: session.userId, sessionId: session.id, seq });
      return answer(session, text, { reply: `Rolled back: removed ${removed} step${removed === 1 ? "" : "s"} from ${stepKey(seq)} on.`, action: { action: "reload", sessionId: session.id } });
    }
    case "/fork": {
      if (!rest[0]) throw new AppError("bad_request", "Usage: /fork <step> [title], e.g. /fork s0003 Try another way");
      const fork = await forkSession({ userId: session.userId, sessionId: session.id, seq: parseStepKey(rest[0]), title: rest.slice(1).join(" ") });
      return answer(session, text, { reply: `Forked into “${fork.title}”.`, action: { action: "open", sessionId: fork.id } });
    }
    case "/resume":
      return resumeSession({ userId: session.userId, sessionId: session.id, ...options });
    case "/skills":
      return answer(session, text, { reply: await formatSkillsCommand(session.userId) });
    case "/help":
      return answer(session, text, { reply: HELP });
    default:
      return answer(session, text, { reply: `Unknown command ${command}.\n\n${HELP}` });
  }
}

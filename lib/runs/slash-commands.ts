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
import { stopSessionRun } from "./stop-run";

/**
 * Slash commands, answered without the model: one registry for every channel a person writes
 * from, each command declaring the channels it serves (the web chat, QQ, Feishu). The command and
 * its reply are stored as a COMMAND step, so they are still there after a reload; the model never
 * sees them. What only a chat channel can do (bind its sender, start a new session for its
 * conversation) it hands in as `conversation`.
 */
export type TCommandChannel = "web" | "qq" | "feishu";
export const CHAT_CHANNELS: readonly TCommandChannel[] = ["qq", "feishu"];

/** What a chat channel lets a command do with the conversation its message came from. */
export type TConversationControls = {
  /** `/new`: the conversation's later messages go to a new session (this one stays in the web chat). */
  startNewSession(): Promise<{ sessionId: string }>;
  /** `/bind <code>`: binds the sender to the code's xclaw user; the answer says to whom. */
  bind(code: string): Promise<string>;
};

export type TCommandContext = {
  channel: TCommandChannel;
  session: ChatSession;
  /** The whole message, e.g. "/fork s0003 Try again". */
  text: string;
  /** The words after the command. */
  args: string[];
  overrides: TStartOverrides;
  conversation?: TConversationControls;
};

export type TSlashCommand = {
  name: `/${string}`;
  /** How it is written, e.g. "/steps [n]" (the web's help shows it as code). */
  usage: string;
  /** What it does, for /help. */
  summary: string;
  channels: readonly TCommandChannel[];
  /** /help leaves it out of the list it prints (the web chat's /help does not list itself). */
  unlisted?: boolean;
  run(context: TCommandContext): Promise<TMessageResult>;
};

export function formatSteps(steps: TStepRow[]): string {
  if (!steps.length) return "No steps yet.";
  const rows = steps.map((step) => {
    const duration = step.durationMs === null ? "" : ` · ${step.durationMs} ms`;
    const tokens = step.inputTokens !== null ? ` · ${step.inputTokens}→${step.outputTokens} tokens` : "";
    // A delegate / debate / pipeline step: its workers' sessions, one trace tree.
    const workers = step.childSessions?.map((child) => `[${child.agent}](/chat/${child.sessionId}) ${child.status}`).join(", ");
    return `| ${step.key} | ${stepLabel(step)}${workers ? ` → ${workers}` : ""} | ${step.status}${duration}${tokens} |`;
  });
  return ["| step | what | status |", "| --- | --- | --- |", ...rows].join("\n");
}

function stepLabel(step: TStepRow): string {
  return step.type === "tool_call" ? `tool ${step.name}` : step.type === "model_call" ? `model${step.model ? ` ${step.model}` : ""}` : step.type === "user_input" ? "user" : step.name;
}

/** /steps for chat apps, which show no tables: one line a step. */
function formatStepLines(steps: TStepRow[]): string {
  if (!steps.length) return "No steps yet.";
  return steps.map((step) => `${step.key} ${stepLabel(step)}: ${step.status}${step.durationMs === null ? "" : `, ${step.durationMs} ms`}`).join("\n");
}

async function answer(context: TCommandContext, output: TCommandOutput): Promise<TMessageResult> {
  const { session, text } = context;
  await recordStep({ sessionId: session.id, userId: session.userId, type: "COMMAND", name: text.split(/\s+/)[0]!.toLowerCase(), status: "COMPLETED", input: asJson({ text }), output: asJson(output) });
  return { kind: "reply", text: output.reply, action: output.action };
}

function conversationOf(context: TCommandContext): TConversationControls {
  if (!context.conversation) throw new AppError("bad_request", `${context.text.split(/\s+/)[0]} works in chat apps (QQ, Feishu) only.`);
  return context.conversation;
}

const WEB: readonly TCommandChannel[] = ["web"];
const EVERYWHERE: readonly TCommandChannel[] = ["web", ...CHAT_CHANNELS];

export const SLASH_COMMANDS: readonly TSlashCommand[] = [
  {
    name: "/bind",
    usage: "/bind <code>",
    summary: "link this chat account to your xclaw account (the code is in Settings → Channels)",
    channels: CHAT_CHANNELS,
    run: async (context) => answer(context, { reply: await conversationOf(context).bind(context.args[0] ?? "") }),
  },
  {
    name: "/new",
    usage: "/new",
    summary: "start a new conversation (the current one stays in xclaw)",
    channels: CHAT_CHANNELS,
    run: async (context) => {
      const reply = await answer(context, { reply: "Started a new conversation. The earlier one stays in xclaw." });
      await conversationOf(context).startNewSession();
      return reply;
    },
  },
  {
    name: "/steps",
    usage: "/steps [n]",
    summary: "the last n steps of this session (default 20)",
    channels: EVERYWHERE,
    run: async (context) => {
      const limit = Math.min(200, Math.max(1, Number(context.args[0]) || 20));
      const steps = (await listStepRows({ sessionId: context.session.id, userId: context.session.userId })).slice(-limit);
      return answer(context, { reply: context.channel === "web" ? formatSteps(steps) : formatStepLines(steps) });
    },
  },
  {
    name: "/rollback",
    usage: "/rollback <step>",
    summary: "drop that step and everything after it (e.g. `/rollback s0003`)",
    channels: WEB,
    run: async (context) => {
      const { session, args } = context;
      if (!args[0]) throw new AppError("bad_request", "Usage: /rollback <step>, e.g. /rollback s0003");
      const seq = parseStepKey(args[0]);
      const { removed } = await rollbackSession({ userId: session.userId, sessionId: session.id, seq });
      return answer(context, { reply: `Rolled back: removed ${removed} step${removed === 1 ? "" : "s"} from ${stepKey(seq)} on.`, action: { action: "reload", sessionId: session.id } });
    },
  },
  {
    name: "/fork",
    usage: "/fork <step> [title]",
    summary: "a new session with the history up to and including that step",
    channels: WEB,
    run: async (context) => {
      const { session, args } = context;
      if (!args[0]) throw new AppError("bad_request", "Usage: /fork <step> [title], e.g. /fork s0003 Try another way");
      const fork = await forkSession({ userId: session.userId, sessionId: session.id, seq: parseStepKey(args[0]), title: args.slice(1).join(" ") });
      return answer(context, { reply: `Forked into “${fork.title}”.`, action: { action: "open", sessionId: fork.id } });
    },
  },
  {
    name: "/resume",
    usage: "/resume",
    summary: "continue an interrupted run",
    channels: WEB,
    run: (context) => resumeSession({ userId: context.session.userId, sessionId: context.session.id, ...context.overrides }),
  },
  {
    name: "/stop",
    usage: "/stop",
    summary: "stop the answer being worked on",
    channels: CHAT_CHANNELS,
    run: async (context) => {
      const stopped = await stopSessionRun({ userId: context.session.userId, sessionId: context.session.id });
      return answer(context, { reply: stopped ? "Stopped." : "Nothing is running." });
    },
  },
  {
    name: "/skills",
    usage: "/skills",
    summary: "the skills you can use (✅) and why others are unavailable (❌); `$name` in a message uses one",
    channels: EVERYWHERE,
    run: async (context) => answer(context, { reply: await formatSkillsCommand(context.session.userId) }),
  },
  {
    name: "/help",
    usage: "/help",
    summary: "these commands",
    channels: EVERYWHERE,
    unlisted: true,
    run: (context) => answer(context, { reply: helpText(context.channel) }),
  },
];

/** The commands a channel serves, in the order /help lists them. */
export function commandsFor(channel: TCommandChannel): TSlashCommand[] {
  return SLASH_COMMANDS.filter((command) => command.channels.includes(channel));
}

export function findCommand(name: string, channel: TCommandChannel): TSlashCommand | undefined {
  const lower = name.toLowerCase();
  return commandsFor(channel).find((command) => command.name === lower);
}

/** The web chat also takes `!<command>`: the person runs a shell command themselves (bang-command.ts). */
const WEB_EXTRAS = ["- `!<command>` — run a shell command in your sandbox yourself, without the model (e.g. `!ls -la`)"];

export function helpText(channel: TCommandChannel): string {
  const listed = commandsFor(channel).filter((command) => !command.unlisted);
  // The web chat renders Markdown; chat apps show text as it is.
  const lines = listed.map((command) => (channel === "web" ? `- \`${command.usage}\` — ${command.summary}` : `${command.usage} — ${command.summary.replaceAll("`", "")}`));
  return ["Commands:", ...lines, ...(channel === "web" ? WEB_EXTRAS : [])].join("\n");
}

/** Answers a slash command; a refused one (bad step id, busy session) throws and stores nothing. */
export async function runSlashCommand(
  session: ChatSession,
  text: string,
  options: TStartOverrides & { channel?: TCommandChannel; conversation?: TConversationControls },
): Promise<TMessageResult> {
  const overrides: TStartOverrides = { providers: options.providers, tools: options.tools, instructions: options.instructions };
  const [name = "", ...args] = text.split(/\s+/);
  const channel = options.channel ?? "web";
  const context: TCommandContext = { channel, session, text, args, overrides, conversation: options.conversation };
  const command = findCommand(name, channel);
  if (!command) return answer(context, { reply: `Unknown command ${name}.\n\n${helpText(channel)}` });
  return command.run(context);
}

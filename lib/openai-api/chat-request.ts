import { z } from "zod";
import { AppError } from "@/lib/errors";
import { MAX_MESSAGE_CHARACTERS } from "@/lib/runs/handle-message";

/**
 * The body of POST /v1/chat/completions, as far as xclaw reads it. Loose objects: OpenAI clients
 * send fields xclaw has no use for (temperature, top_p, max_tokens, tools, n, seed…), and refusing
 * them would break every client library; they are accepted and ignored. The agent decides its own
 * model settings and tools (ARCHITECTURE.md, "OpenAI-compatible API").
 */
const ZContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

const ZMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], { error: "Each message's role is system, developer, user, assistant or tool." }),
  content: z.union([z.string(), z.array(ZContentPart), z.null()]).optional(),
  name: z.string().optional(),
});
export type TChatMessage = z.infer<typeof ZMessage>;

export const ZChatCompletionRequest = z.looseObject({
  model: z.string({ error: "model is required: xclaw, or xclaw:<agent> (GET /v1/models lists them)." }).trim().min(1, "model is required: xclaw, or xclaw:<agent>."),
  messages: z.array(ZMessage, { error: "messages is required: a list with at least one user message." }).min(1, "messages must hold at least one message."),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  /** An xclaw session id to continue (the X-Xclaw-Session header wins when both are sent). */
  user: z.string().max(200).nullish(),
});
export type TChatCompletionRequest = z.infer<typeof ZChatCompletionRequest>;

/** The text of a message's content; parts other than text (images, audio, files) are refused. */
export function contentText(message: TChatMessage): string {
  const content = message.content;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  const other = content.find((part) => part.type !== "text");
  if (other) throw new AppError("bad_request", `Only text content is accepted; a message has a "${other.type}" part.`);
  return content.map((part) => part.text ?? "").join("");
}

const ROLE_LABEL: Record<TChatMessage["role"], string> = {
  system: "System",
  developer: "System",
  user: "User",
  assistant: "Assistant",
  tool: "Tool result",
  function: "Tool result",
};

/**
 * What the run gets as the person's message. The last message must be the user's: it is the new
 * input. Continuing a session, that is all (the history is in the database). Starting one, the
 * messages before it (a client's system prompt, a conversation begun elsewhere) are written above
 * it as a labelled transcript in the same message, so they stay part of the session's history for
 * every later run (an approval's continuation included) and never become xclaw's own system prompt.
 */
export function runInputText(messages: TChatMessage[], options: { continuing: boolean }): { text: string; lastUserText: string } {
  const last = messages.at(-1)!;
  if (last.role !== "user") throw new AppError("bad_request", `The last message must be the user's (it was ${last.role}): it is the new input for the agent.`);
  const lastUserText = contentText(last).trim();
  if (!lastUserText) throw new AppError("bad_request", "The last user message is empty.");
  const earlier = options.continuing ? [] : messages.slice(0, -1).filter((message) => contentText(message).trim());
  const text = earlier.length
    ? [
        "[Earlier messages, sent by the API client with this request]",
        ...earlier.map((message) => `${ROLE_LABEL[message.role]}: ${contentText(message).trim()}`),
        "",
        "[The new message]",
        lastUserText,
      ].join("\n")
    : lastUserText;
  if (text.length > MAX_MESSAGE_CHARACTERS) {
    throw new AppError("bad_request", `The messages are longer than ${MAX_MESSAGE_CHARACTERS.toLocaleString("en")} characters together. Continue a session (X-Xclaw-Session) instead of resending its history.`);
  }
  return { text, lastUserText };
}

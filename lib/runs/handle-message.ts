import { z } from "zod";
import { AppError } from "@/lib/errors";
import { resolveAttachments } from "@/lib/sessions/attachments";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import type { TMessageAttachment } from "@/lib/sessions/user-content";
import { runBangCommand } from "./bang-command";
import type { TMessageResult } from "./message-result";
import type { TStartOverrides } from "./resume-session";
import { markInterruptedIfStale } from "./run-lease";
import type { TRunTrigger } from "./run-types";
import { runSlashCommand, type TCommandChannel, type TConversationControls } from "./slash-commands";
import { startRun } from "./start-run";

/**
 * One message in from any channel, one neutral result out: slash commands and `!commands` are
 * answered without the model, anything else starts a run. The channel sends only the new text;
 * history always comes from the database.
 */
// Room for what people paste (logs, stack traces, documents: issue 31 asks for 200 KB); the JSON
// body limit (http.maxJsonBytes, 1 MiB by default) still holds the request as a whole.
export const MAX_MESSAGE_CHARACTERS = 300_000;

export const ZMessageText = z
  .string({ error: "text is required." })
  .trim()
  .min(1, "The message is empty.")
  .max(MAX_MESSAGE_CHARACTERS, `The message is longer than ${MAX_MESSAGE_CHARACTERS.toLocaleString("en-US")} characters.`);

export async function handleMessage(
  options: {
    userId: string;
    sessionId: string;
    text: string;
    trigger?: TRunTrigger;
    /** Workspace paths of files attached to the message (uploaded before, lib/sessions/attachments.ts). */
    attachments?: string[];
    /** Files the channel already stored in the workspace and read back (a chat bot's downloads). */
    files?: TMessageAttachment[];
    /** Which commands the message may use (slash-commands.ts); the web chat by default. */
    channel?: TCommandChannel;
    /** What a chat channel lets commands do with its conversation (/bind, /new). */
    conversation?: TConversationControls;
  } & TStartOverrides,
): Promise<TMessageResult> {
  const text = options.text.trim();
  const attachmentPaths = options.attachments ?? [];
  const files = options.files ?? [];
  const channel = options.channel ?? "web";
  // `!command` runs a shell command without the model: only in the web chat, where the person sees the card.
  const bang = channel === "web" && text.startsWith("!");
  if (attachmentPaths.length || files.length || (!text.startsWith("/") && !bang)) {
    // The common case skips loading the session: the claim checks owner and state in one statement.
    if (!z.uuid().safeParse(options.sessionId).success) throw new AppError("not_found", "No such session.");
    if (!text && !attachmentPaths.length && !files.length) throw new AppError("bad_request", "The message is empty.");
    const resolved = attachmentPaths.length ? await resolveAttachments({ userId: options.userId, paths: attachmentPaths }) : [];
    const attachments = resolved.length || files.length ? [...resolved, ...files] : undefined;
    const run = await startRun({
      session: { id: options.sessionId, userId: options.userId },
      input: { kind: "message", text, attachments },
      trigger: options.trigger ?? "web",
      limits: options.instructions ? { instructions: options.instructions } : undefined,
      providers: options.providers,
      tools: options.tools,
    });
    return { kind: "run", run };
  }
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  if (text.startsWith("/")) return runSlashCommand(session, text, { ...options, channel });
  return runBangCommand({ session, command: text.slice(1).trim() });
}

import path from "node:path";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { isAppError } from "@/lib/errors";
import { messageAttachmentOf, safeFileName, sniffImage, storeWorkspaceFile } from "@/lib/sessions/attachments";
import { humanBytes, type TMessageAttachment } from "@/lib/sessions/user-content";
import type { TOpenedAccount } from "./channel-accounts";
import type { TInboundAttachment, TInboundMessage } from "./inbound-message";
import { describePlatformError, PlatformError } from "./platform-request";
import { PLATFORMS } from "./platforms";

/**
 * Pictures and files sent to a bot, handled in the channel job (never on the path the platform
 * waits on): each is downloaded through the SSRF guard (platform-request.ts, with
 * `channels.allowedPrivateHosts`) under `channels.attachments.maxFileBytes`, at most `maxFiles` per
 * message, and stored in the bound person's workspace as `channels/<date>/<name>` (the name
 * sanitised to one path component, the folder chosen here). The run gets them like web chat
 * attachments; one that is too large, past the count or fails is skipped, and the run is told which
 * and why, so the model can say so instead of pretending it saw it.
 */
export const CHANNEL_FOLDER = "channels";

const EXTENSIONS: Record<string, string> = { "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp" };

export type TReceivedAttachments = { files: TMessageAttachment[]; notes: string[] };

/** The name a file is stored under: the sender's (sanitised), else one made up; images get their extension. */
function fileNameOf(attachment: TInboundAttachment, index: number, data?: Uint8Array): string {
  const given = attachment.fileName?.trim();
  const fallback = attachment.source === "feishu" ? `${attachment.type}-${attachment.key}` : `attachment-${index + 1}`;
  const name = safeFileName(given || fallback);
  const image = data ? sniffImage(data) : undefined;
  return image && !path.extname(name) ? `${name}${EXTENSIONS[image]}` : name;
}

function skipped(name: string, reason: string): string {
  return `[Attachment "${name}" was not read: ${reason}]`;
}

export async function receiveAttachments(options: { account: TOpenedAccount; userId: string; message: TInboundMessage; signal?: AbortSignal }): Promise<TReceivedAttachments> {
  const { account, userId, message } = options;
  const limits = getBehaviourConfig().channels.attachments;
  const folder = `${CHANNEL_FOLDER}/${message.sentAt.slice(0, 10)}`;
  const received: TReceivedAttachments = { files: [], notes: [] };
  for (const [index, attachment] of message.attachments.slice(0, limits.maxFiles).entries()) {
    const shown = fileNameOf(attachment, index);
    if (attachment.source === "url" && attachment.size !== undefined && attachment.size > limits.maxFileBytes) {
      received.notes.push(skipped(shown, `it is ${humanBytes(attachment.size)}, over the limit of ${humanBytes(limits.maxFileBytes)} per file`));
      continue;
    }
    let data: Uint8Array;
    try {
      ({ data } = await PLATFORMS[account.kind].downloadAttachment(account, message, attachment, { maxBytes: limits.maxFileBytes, timeoutMs: limits.timeoutSeconds * 1000, signal: options.signal }));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const reason = error instanceof PlatformError && error.tooLarge ? `it is over the limit of ${humanBytes(limits.maxFileBytes)} per file` : `the download failed (${describePlatformError(error)})`;
      received.notes.push(skipped(shown, reason));
      continue;
    }
    try {
      const stored = await storeWorkspaceFile({ userId, folder, fileName: fileNameOf(attachment, index, data), data, reuseIdentical: true });
      received.files.push(messageAttachmentOf(stored.path, data));
    } catch (error) {
      if (!isAppError(error)) throw error;
      // A full workspace, an empty file: the person's side of things, told to the run.
      received.notes.push(skipped(shown, `it could not be saved in the workspace (${error.message})`));
    }
  }
  const beyond = message.attachments.length - limits.maxFiles;
  if (beyond > 0) received.notes.push(`[${beyond} more attachment${beyond === 1 ? " was" : "s were"} not read: at most ${limits.maxFiles} are read from one message]`);
  return received;
}

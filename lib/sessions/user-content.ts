import type { TContentPart } from "@/lib/providers/types";
import type { TAttachmentView } from "@/lib/wire/chat";

/**
 * A person's message as the model reads it: the text, a line naming the attached files (stored in
 * their workspace, where the agent's file tools can read them) and the attached images as image
 * parts. Used when the message is first sent and whenever history is rebuilt from the steps.
 */

/** An attachment as stored with the message's step: what the UI shows, plus the image for the model. */
export type TMessageAttachment = Omit<TAttachmentView, "preview"> & { image?: { mediaType: string; data: string } };

/** 12 KB, 3.4 MB: for the model and for people. */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What the model reads for a user message: the text, a line naming the files, the images. */
export function userMessageContent(text: string, attachments: TMessageAttachment[] = []): TContentPart[] {
  if (!attachments.length) return [{ type: "text", text }];
  const listed = attachments.map((file) => `${file.path} (${file.mediaType}, ${humanBytes(file.bytes)}${file.image ? ", shown below" : ""})`).join("; ");
  const parts: TContentPart[] = [{ type: "text", text: `${text ? `${text}\n\n` : ""}[Attached files, saved in my workspace: ${listed}]` }];
  for (const file of attachments) if (file.image) parts.push({ type: "image", mediaType: file.image.mediaType, data: file.image.data });
  return parts;
}

import path from "node:path";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError, isAppError } from "@/lib/errors";
import { formatBytes } from "@/lib/http/request-body";
import { localWorkspace } from "@/lib/sandbox/runtime";
import type { TAttachmentView } from "@/lib/wire/chat";
import type { TMessageAttachment } from "./user-content";

/**
 * Files people attach to a chat message. An upload is stored in the owner's workspace under
 * `uploads/` (through the workspace's path checks and quota, never replacing a file); the message
 * then names the stored paths. When the message is sent, each file is named to the agent (it can
 * read it with its file tools), and images — recognised by their bytes, not by what the browser
 * claimed — are also given to the model as image parts.
 */
export const UPLOAD_FOLDER = "uploads";

const IMAGE_SIGNATURES: { mediaType: string; test: (data: Uint8Array) => boolean }[] = [
  { mediaType: "image/png", test: (data) => data.length > 8 && data[0] === 0x89 && data[1] === 0x50 && data[2] === 0x4e && data[3] === 0x47 },
  { mediaType: "image/jpeg", test: (data) => data.length > 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff },
  { mediaType: "image/gif", test: (data) => data.length > 6 && String.fromCharCode(...data.subarray(0, 4)) === "GIF8" },
  { mediaType: "image/webp", test: (data) => data.length > 12 && String.fromCharCode(...data.subarray(0, 4)) === "RIFF" && String.fromCharCode(...data.subarray(8, 12)) === "WEBP" },
];

/** The image type the bytes really are (PNG, JPEG, GIF, WebP), or undefined. */
export function sniffImage(data: Uint8Array): string | undefined {
  return IMAGE_SIGNATURES.find((signature) => signature.test(data))?.mediaType;
}

const TEXT_TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".html": "text/html",
  ".xml": "application/xml",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
};

function mediaTypeOf(name: string, data: Uint8Array): string {
  return sniffImage(data) ?? TEXT_TYPES[path.extname(name).toLowerCase()] ?? "application/octet-stream";
}

/**
 * A file name that is safe as one path component: no folders, no control characters, no leading
 * dots (hidden files), at most 120 characters with the extension kept.
 */
export function safeFileName(requested: string): string {
  const base = requested.split(/[\\/]/).pop() ?? "";
  const cleaned = base.normalize("NFC").replace(/[\u0000-\u001f\u007f<>:"|?*]/g, "_").replace(/^\.+/, "").trim();
  const extension = path.extname(cleaned).slice(0, 20);
  const stem = cleaned.slice(0, cleaned.length - path.extname(cleaned).length).slice(0, 100) || "file";
  return `${stem}${extension}`;
}

function withCounter(name: string, counter: number): string {
  const extension = path.extname(name);
  return `${name.slice(0, name.length - extension.length)} (${counter})${extension}`;
}

/** Stores one uploaded file as uploads/<name>, or uploads/<name> (2) … when that name is taken. */
export async function storeAttachment(options: { userId: string; fileName: string; data: Uint8Array }): Promise<TAttachmentView> {
  const { maxFileBytes } = getBehaviourConfig().chat.attachments;
  if (options.data.byteLength > maxFileBytes) throw new AppError("payload_too_large", `The file is larger than the limit of ${formatBytes(maxFileBytes)}.`);
  const stored = await storeWorkspaceFile({ ...options, folder: UPLOAD_FOLDER });
  return { name: stored.name, path: stored.path, mediaType: mediaTypeOf(stored.name, options.data), bytes: stored.bytes };
}

/**
 * Stores a file someone sent in `folder` (a workspace-relative path xclaw chose, never the
 * sender's) under its sanitised name, `<name> (2)` … when the name is taken. `reuseIdentical`: a
 * file of that name with the very same bytes is the one to use (a job that downloads again after
 * a retry stores nothing twice).
 */
export async function storeWorkspaceFile(options: { userId: string; folder: string; fileName: string; data: Uint8Array; reuseIdentical?: boolean }): Promise<{ name: string; path: string; bytes: number }> {
  if (options.data.byteLength === 0) throw new AppError("bad_request", "The file is empty.");
  const name = safeFileName(options.fileName);
  const workspace = localWorkspace(options.userId);
  for (let counter = 1; counter <= 100; counter++) {
    const candidate = counter === 1 ? name : withCounter(name, counter);
    const requested = `${options.folder}/${candidate}`;
    try {
      const stored = await workspace.createUpload(requested, options.data);
      return { name: candidate, path: stored.relative, bytes: stored.bytes };
    } catch (error) {
      if (!isAppError(error) || error.code !== "conflict") throw error;
      if (options.reuseIdentical) {
        const existing = await workspace.readUpload(requested, options.data.byteLength).catch(() => undefined);
        if (existing && Buffer.compare(existing.data, options.data) === 0) return { name: candidate, path: existing.relative, bytes: existing.data.byteLength };
      }
    }
  }
  throw new AppError("conflict", `There are already too many files called "${name}" in ${options.folder}/. Rename the file and try again.`);
}

/** A stored file as a message attachment: named to the agent, an image also given to the model (up to chat.attachments.maxImageBytes). */
export function messageAttachmentOf(relative: string, data: Uint8Array): TMessageAttachment {
  const { maxImageBytes } = getBehaviourConfig().chat.attachments;
  const name = path.basename(relative);
  const image = sniffImage(data);
  return {
    name,
    path: relative,
    mediaType: image ?? mediaTypeOf(name, data),
    bytes: data.byteLength,
    ...(image && data.byteLength <= maxImageBytes ? { image: { mediaType: image, data: Buffer.from(data).toString("base64") } } : {}),
  };
}

/**
 * The attachments of a message about to be sent, read back from the workspace (so what the model
 * gets is what is stored there, whatever the browser sent along).
 */
export async function resolveAttachments(options: { userId: string; paths: string[] }): Promise<TMessageAttachment[]> {
  const { maxFiles, maxFileBytes } = getBehaviourConfig().chat.attachments;
  if (options.paths.length > maxFiles) throw new AppError("bad_request", `Attach at most ${maxFiles} files to one message.`);
  const workspace = localWorkspace(options.userId);
  const attachments: TMessageAttachment[] = [];
  for (const requested of new Set(options.paths)) {
    const { relative, data } = await workspace.readUpload(requested, maxFileBytes);
    attachments.push(messageAttachmentOf(relative, data));
  }
  return attachments;
}

"use client";

import type { ReactNode } from "react";
import { FileIcon } from "@/components/ui/icons";
import { useLightbox } from "@/components/ui/image-lightbox";
import type { TAttachmentView } from "./types";

export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A file attached to a message: a thumbnail for images (opens full size), else its name and size.
 * `status` and `action` are for files still in the message box (uploading, failed, remove).
 */
export function AttachmentChip({
  file,
  status,
  error,
  action,
}: {
  file: Pick<TAttachmentView, "name" | "mediaType" | "bytes" | "preview"> & { path?: string };
  status?: "uploading" | "failed";
  error?: string;
  action?: ReactNode;
}) {
  const openImage = useLightbox();
  const description = `${file.name}, ${humanBytes(file.bytes)}${status === "uploading" ? ", uploading" : status === "failed" ? `, not uploaded: ${error ?? "failed"}` : ""}`;
  return (
    <li
      data-testid="attachment"
      data-status={status ?? "stored"}
      title={file.path ? `Saved in your workspace as ${file.path}` : undefined}
      className={[
        "flex max-w-full min-w-0 items-center gap-2 rounded-lg border py-1 pr-1 pl-1 text-xs",
        status === "failed" ? "border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200" : "border-neutral-200 bg-white text-neutral-700 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-300",
      ].join(" ")}
    >
      {file.preview ? (
        <button
          type="button"
          onClick={() => openImage({ src: file.preview!, alt: file.name })}
          aria-label={`Open ${file.name} full size`}
          className="shrink-0 cursor-zoom-in rounded focus-visible:outline-2 focus-visible:outline-blue-600"
        >
          {/* A data or blob URL of the person's own file: next/image adds nothing here. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src={file.preview} alt="" className="size-9 rounded object-cover" />
        </button>
      ) : (
        <span aria-hidden="true" className="grid size-9 shrink-0 place-items-center rounded bg-neutral-100 dark:bg-neutral-800">
          <FileIcon />
        </span>
      )}
      <span className="min-w-0">
        <span className="sr-only">{description}</span>
        <span aria-hidden="true" className="block max-w-48 truncate font-medium">
          {file.name}
        </span>
        <span aria-hidden="true" className="block truncate opacity-75">
          {status === "uploading" ? "Uploading…" : status === "failed" ? (error ?? "Not uploaded") : humanBytes(file.bytes)}
        </span>
      </span>
      {action}
    </li>
  );
}

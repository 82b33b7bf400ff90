"use client";

import { useId, useImperativeHandle, useRef, useState, type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent, type ReactNode, type Ref } from "react";
import { apiUpload, errorMessage } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Button } from "@/components/ui/button";
import { AttachIcon, CloseIcon, StopIcon } from "@/components/ui/icons";
import { AttachmentChip, humanBytes } from "./attachment-chip";
import { useAutosize, useLongTextInsert } from "./hooks/use-long-text-box";
import type { TAttachmentView } from "./types";

/**
 * The message box: Enter sends, Shift+Enter adds a line, and while a reply streams Send becomes
 * Stop (Esc stops too). Text starting with "/" opens the command list, a listbox driven from the
 * box itself (↑ ↓ to choose, Enter or Tab to take, Esc to close). Files come in by the paperclip,
 * by pasting or by dropping them: each is uploaded to the person's workspace at once and sent with
 * the message.
 *
 * The box keeps its own text: typing re-renders the box, never the conversation above it (with a
 * long text pasted, every key used to render the whole chat page again). The page gets the text
 * when it is sent.
 */
const COMMANDS = [
  { command: "/steps", hint: "list the steps of this chat" },
  { command: "/rollback", hint: "s0003 — drop that step and all after it" },
  { command: "/fork", hint: "s0003 [title] — a new chat up to that step" },
  { command: "/resume", hint: "continue an interrupted run" },
  { command: "/help", hint: "all commands" },
];

const MAX_HEIGHT = 200;

/** A file in the message box: uploading, stored in the workspace, or refused. */
export type TDraftAttachment = { id: string; name: string; bytes: number; mediaType: string; preview?: string; status: "uploading" | "stored" | "failed"; error?: string; stored?: TAttachmentView };

export type TAttachmentLimits = { maxFileBytes: number; maxFiles: number };

let draftCounter = 0;

export function ChatComposer({
  sessionId,
  returnedDraft,
  attachments,
  onAttachmentsChange,
  limits,
  onSend,
  onStop,
  busy,
  stopping,
  disabled,
  placeholder,
  footer,
  notice,
  textareaRef,
}: {
  sessionId: string;
  /** A message the server refused comes back into the box (when the box is empty); a new object each time. */
  returnedDraft?: { text: string };
  attachments: TDraftAttachment[];
  onAttachmentsChange: (change: (current: TDraftAttachment[]) => TDraftAttachment[]) => void;
  limits: TAttachmentLimits;
  /** Sends the text with the stored files; false when it was not sent (the box keeps the text). */
  onSend: (text: string) => boolean;
  onStop: () => void;
  busy: boolean;
  stopping: boolean;
  /** Sending is impossible (no model configured); the page says why. */
  disabled: boolean;
  placeholder: string;
  footer?: ReactNode;
  notice?: ReactNode;
  /** The message box itself; the page moves the keyboard there (new chat, after a decision). */
  textareaRef: Ref<HTMLTextAreaElement | null>;
}) {
  const id = useId();
  const fallbackAction = useFormFallbackAction();
  const textarea = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle<HTMLTextAreaElement | null, HTMLTextAreaElement | null>(textareaRef, () => textarea.current, []);
  const fileInput = useRef<HTMLInputElement>(null);
  const [highlighted, setHighlighted] = useState(0);
  const [dismissedFor, setDismissedFor] = useState<string>();
  const [dragging, setDragging] = useState(false);
  const [value, setValue] = useState("");
  useAutosize(textarea, value, MAX_HEIGHT);
  useLongTextInsert(textarea);

  // Adjusted while rendering, as React recommends for state that follows a changed value.
  const [seenDraft, setSeenDraft] = useState(returnedDraft);
  if (returnedDraft !== seenDraft) {
    setSeenDraft(returnedDraft);
    if (returnedDraft && !value.trim()) setValue(returnedDraft.text);
  }

  const commandQuery = /^\/\S*$/.test(value) ? value.toLowerCase() : undefined;
  const commands = commandQuery === undefined || dismissedFor === value ? [] : COMMANDS.filter((item) => item.command.startsWith(commandQuery));
  const menuOpen = commands.length > 0;
  const active = Math.min(highlighted, Math.max(0, commands.length - 1));
  const uploading = attachments.some((file) => file.status === "uploading");
  const stored = attachments.filter((file) => file.status === "stored");
  const canSend = !busy && !disabled && !uploading && (value.trim() !== "" || stored.length > 0);

  const pick = (command: string) => {
    setValue(`${command} `);
    setHighlighted(0);
    textarea.current?.focus();
  };

  const send = () => {
    if (canSend && onSend(value)) setValue("");
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (menuOpen) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        setHighlighted((active + (event.key === "ArrowDown" ? 1 : commands.length - 1)) % commands.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        pick(commands[active]!.command);
        return;
      }
      if (event.key === "Escape") {
        // Closes the list only; Esc on its own stops a streaming reply (chat-view.tsx).
        event.preventDefault();
        event.stopPropagation();
        setDismissedFor(value);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  };

  function addFiles(files: File[]) {
    if (!files.length) return;
    const room = limits.maxFiles - attachments.filter((file) => file.status !== "failed").length;
    const added: TDraftAttachment[] = files.map((file, index) => {
      const base = { id: `draft-${++draftCounter}`, name: file.name || "pasted-image.png", bytes: file.size, mediaType: file.type || "application/octet-stream" };
      if (index >= room) return { ...base, status: "failed", error: `At most ${limits.maxFiles} files per message` };
      if (file.size > limits.maxFileBytes) return { ...base, status: "failed", error: `Larger than ${humanBytes(limits.maxFileBytes)}` };
      if (file.size === 0) return { ...base, status: "failed", error: "The file is empty" };
      return { ...base, status: "uploading", preview: file.type.startsWith("image/") ? URL.createObjectURL(file) : undefined };
    });
    onAttachmentsChange((current) => [...current, ...added]);
    added.forEach((draft, index) => {
      if (draft.status !== "uploading") return;
      const file = files[index]!;
      apiUpload<{ attachment: TAttachmentView }>(`/api/sessions/${encodeURIComponent(sessionId)}/attachments?name=${encodeURIComponent(draft.name)}`, file).then(
        ({ attachment }) =>
          onAttachmentsChange((current) =>
            current.map((item) => (item.id === draft.id ? { ...item, status: "stored", stored: { ...attachment, ...(draft.preview ? { preview: draft.preview } : {}) } } : item)),
          ),
        (caught: unknown) => onAttachmentsChange((current) => current.map((item) => (item.id === draft.id ? { ...item, status: "failed", error: errorMessage(caught) } : item))),
      );
    });
  }

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (files.length) {
      event.preventDefault();
      addFiles(files);
    }
  };

  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDragging(false);
    addFiles(Array.from(event.dataTransfer.files));
  };

  const optionId = (index: number) => `${id}-command-${index}`;

  return (
    <form
      method="post"
      action={fallbackAction}
      onSubmit={onSubmit}
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes("Files")) {
          event.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      {menuOpen ? (
        <div className="mb-2 rounded-xl border border-neutral-200 bg-white p-1 dark:border-neutral-800 dark:bg-neutral-900">
          <p id={`${id}-commands-label`} className="px-2 pt-1 pb-1.5 text-xs text-neutral-500 dark:text-neutral-400">
            Commands (sent as a message) · ↑↓ to choose, Enter to take, Esc to close
          </p>
          <ul id={`${id}-commands`} role="listbox" aria-labelledby={`${id}-commands-label`}>
            {commands.map((item, index) => (
              <li
                key={item.command}
                id={optionId(index)}
                role="option"
                aria-selected={index === active}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => pick(item.command)}
                className={[
                  "flex cursor-pointer items-baseline gap-2 rounded-lg px-2 py-1.5 text-sm",
                  index === active ? "bg-neutral-100 dark:bg-neutral-800" : "hover:bg-neutral-50 dark:hover:bg-neutral-800/60",
                ].join(" ")}
              >
                <span className="font-mono font-medium text-neutral-900 dark:text-neutral-100">{item.command}</span>
                <span className="truncate text-xs text-neutral-500 dark:text-neutral-400">{item.hint}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {value.startsWith("!") ? (
        <p className="mb-2 rounded-xl border border-neutral-200 bg-white px-3 py-2 text-xs text-neutral-600 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-400">
          <code className="font-mono">!command</code> runs the command yourself in your sandbox, without the model.
        </p>
      ) : null}
      {notice}
      <div
        className={[
          "rounded-2xl border bg-white p-2 shadow-xs focus-within:outline-2 dark:bg-neutral-900",
          dragging
            ? "border-blue-600 outline-2 outline-blue-600/30 dark:border-blue-400"
            : "border-neutral-300 focus-within:border-blue-600 focus-within:outline-blue-600/30 dark:border-neutral-700 dark:focus-within:border-blue-400 dark:focus-within:outline-blue-400/30",
        ].join(" ")}
      >
        {attachments.length ? (
          <ul aria-label="Files to send" className="flex flex-wrap gap-1.5 px-1 pb-2">
            {attachments.map((file) => (
              <AttachmentChip
                key={file.id}
                file={file.stored ?? file}
                status={file.status === "stored" ? undefined : file.status}
                error={file.error}
                action={
                  <button
                    type="button"
                    aria-label={`Remove ${file.name}`}
                    title={`Remove ${file.name}`}
                    onClick={() => onAttachmentsChange((current) => current.filter((item) => item.id !== file.id))}
                    className="grid size-7 shrink-0 place-items-center rounded-md hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:hover:bg-neutral-800"
                  >
                    <CloseIcon size="sm" />
                  </button>
                }
              />
            ))}
          </ul>
        ) : null}
        <div className="flex items-end gap-1">
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            data-testid="attach-input"
            onChange={(event) => {
              addFiles(Array.from(event.target.files ?? []));
              event.target.value = "";
            }}
          />
          <button
            type="button"
            onClick={() => fileInput.current?.click()}
            disabled={disabled}
            aria-label="Attach files"
            title="Attach files (or paste or drop them here)"
            className="grid size-10 shrink-0 place-items-center rounded-xl text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-50 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-white"
          >
            <AttachIcon size="lg" />
          </button>
          <label htmlFor={`${id}-message`} className="sr-only">
            Message
          </label>
          <textarea
            ref={textarea}
            id={`${id}-message`}
            name="message"
            rows={1}
            value={value}
            onChange={(event) => {
              setValue(event.target.value);
              setHighlighted(0);
            }}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
            placeholder={placeholder}
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={menuOpen}
            aria-controls={menuOpen ? `${id}-commands` : undefined}
            aria-activedescendant={menuOpen ? optionId(active) : undefined}
            aria-describedby={`${id}-hint`}
            autoComplete="off"
            className="max-h-[200px] min-h-10 flex-1 resize-none bg-transparent px-2 py-2 text-base text-neutral-900 placeholder:text-neutral-400 focus:outline-none sm:text-[15px] dark:text-neutral-100 dark:placeholder:text-neutral-500"
          />
          {busy ? (
            <Button type="button" variant="secondary" onClick={onStop} pending={stopping} className="shrink-0" aria-keyshortcuts="Escape">
              {stopping ? null : <StopIcon size="sm" />}
              Stop
            </Button>
          ) : (
            <Button type="submit" disabled={!canSend} className="shrink-0">
              Send
            </Button>
          )}
        </div>
      </div>
      <div className="mt-1.5 flex flex-wrap items-center justify-between gap-x-3 gap-y-1 px-1 text-xs text-neutral-500 dark:text-neutral-400">
        <p id={`${id}-hint`}>
          <span className="hidden sm:inline">Enter to send, Shift+Enter for a new line{busy ? ", Esc to stop" : ""}. </span>
          Type <code className="font-mono">/</code> for commands.
        </p>
        {footer}
      </div>
    </form>
  );
}

"use client";

import { memo, useId, useLayoutEffect, useRef, useState, type FormEvent } from "react";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Button } from "@/components/ui/button";
import { EditIcon } from "@/components/ui/icons";
import { AttachmentChip } from "./attachment-chip";
import { ActionButton, CopyButton, MessageActions } from "./message-actions";
import { messageAttachments, messageText } from "./message-model";
import { StepLabel } from "./message-parts";
import type { TAttachmentView, TChatMessage } from "./types";

/**
 * A message the person sent, with Copy and Edit. Editing sends the new text in its place: this
 * message and everything after it are rolled back first (a fork from the steps panel keeps them).
 */
export const UserMessage = memo(function UserMessage({
  message,
  stepKey,
  showStepIds,
  canEdit,
  onEdit,
}: {
  message: TChatMessage;
  stepKey?: string;
  showStepIds: boolean;
  /** Not while a run is going, and only once the server has stored the message. */
  canEdit: boolean;
  onEdit: (message: TChatMessage, text: string, attachments: TAttachmentView[]) => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const text = messageText(message);
  const attachments = messageAttachments(message);
  const editButton = useRef<HTMLButtonElement>(null);

  return (
    <div data-testid="user-message" className="group flex flex-col items-end gap-1">
      <h3 className="sr-only">You said</h3>
      {attachments.length ? (
        <ul aria-label="Attached files" className="flex max-w-[85%] flex-wrap justify-end gap-1.5">
          {attachments.map((file) => (
            <AttachmentChip key={file.path} file={file} />
          ))}
        </ul>
      ) : null}
      {editing ? (
        <EditForm
          initial={text}
          onCancel={() => {
            setEditing(false);
            requestAnimationFrame(() => editButton.current?.focus());
          }}
          onSave={async (next) => {
            await onEdit(message, next, attachments);
            setEditing(false);
          }}
        />
      ) : text ? (
        <div data-testid="user-message-text" className="max-w-[85%] rounded-2xl rounded-br-md bg-neutral-100 px-4 py-2.5 text-[15px] leading-7 break-words whitespace-pre-wrap text-neutral-900 dark:bg-neutral-800 dark:text-neutral-100">
          {text}
        </div>
      ) : null}
      {!editing ? (
        <div className="flex items-center gap-1">
          {showStepIds && stepKey ? <StepLabel stepKey={stepKey} /> : null}
          <MessageActions align="end">
            <CopyButton text={text} label="Copy text" />
            {canEdit ? (
              <ActionButton ref={editButton} label="Edit" onClick={() => setEditing(true)}>
                <EditIcon />
              </ActionButton>
            ) : null}
          </MessageActions>
        </div>
      ) : null}
    </div>
  );
});

function EditForm({ initial, onSave, onCancel }: { initial: string; onSave: (text: string) => Promise<void>; onCancel: () => void }) {
  const [value, setValue] = useState(initial);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const area = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const fallbackAction = useFormFallbackAction();

  useLayoutEffect(() => {
    const element = area.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, 320)}px`;
  }, [value]);

  useLayoutEffect(() => {
    area.current?.focus();
    area.current?.setSelectionRange(area.current.value.length, area.current.value.length);
  }, []);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!value.trim() || pending) return;
    setPending(true);
    setError(undefined);
    try {
      await onSave(value);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not send the edited message.");
      setPending(false);
    }
  }

  return (
    <form method="post" action={fallbackAction} onSubmit={submit} className="w-full max-w-[85%] rounded-2xl border border-neutral-300 bg-white p-2 dark:border-neutral-700 dark:bg-neutral-900">
      <label htmlFor={`${id}-edit`} className="sr-only">
        Edited text
      </label>
      <textarea
        ref={area}
        id={`${id}-edit`}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            onCancel();
          } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void submit();
          }
        }}
        aria-describedby={`${id}-hint`}
        className="block min-h-16 w-full resize-none bg-transparent px-2 py-1.5 text-base text-neutral-900 focus:outline-none sm:text-[15px] dark:text-neutral-100"
      />
      <p id={`${id}-hint`} className="px-2 text-xs text-neutral-500 dark:text-neutral-400">
        Sending replaces this message and everything after it (they are rolled back; fork from the steps panel to keep them).
      </p>
      {error ? (
        <p role="alert" className="px-2 pt-1 text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
      <div className="mt-2 flex justify-end gap-2">
        <Button type="button" variant="secondary" size="sm" onClick={onCancel} disabled={pending}>
          Cancel
        </Button>
        <Button type="submit" size="sm" pending={pending} disabled={!value.trim()}>
          Send
        </Button>
      </div>
    </form>
  );
}

"use client";

import { useState, type ReactNode, type Ref } from "react";
import { copyText } from "./copy-text";

/**
 * The small row under a message: Copy, and where it applies Edit (your messages) or Regenerate
 * (the last reply). Visible on hover and focus where there is a mouse; always on touch screens.
 */
export function MessageActions({ children, align = "start" }: { children: ReactNode; align?: "start" | "end" }) {
  return (
    <div
      data-testid="message-actions"
      className={[
        "flex items-center gap-0.5 text-neutral-500 dark:text-neutral-400",
        align === "end" ? "justify-end" : "justify-start",
        "pointer-fine:opacity-0 pointer-fine:group-focus-within:opacity-100 pointer-fine:group-hover:opacity-100",
      ].join(" ")}
    >
      {children}
    </div>
  );
}

export function ActionButton({ label, onClick, disabled, children, ref }: { label: string; onClick: () => void; disabled?: boolean; children: ReactNode; ref?: Ref<HTMLButtonElement> }) {
  return (
    <button
      ref={ref}
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      disabled={disabled}
      className="grid size-8 place-items-center rounded-md hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-40 disabled:hover:bg-transparent dark:hover:bg-neutral-800 dark:hover:text-white"
    >
      {children}
    </button>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean>();
  return (
    <>
      <ActionButton
        label={copied ? "Copied" : label}
        onClick={async () => {
          setCopied(await copyText(text));
          setTimeout(() => setCopied(undefined), 2_000);
        }}
      >
        {copied ? <CheckIcon /> : <CopyIcon />}
      </ActionButton>
      <span role="status" className="sr-only">
        {copied === true ? "Copied to the clipboard" : copied === false ? "Could not copy" : ""}
      </span>
    </>
  );
}

function Icon({ children }: { children: ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      {children}
    </svg>
  );
}

export function CopyIcon() {
  return (
    <Icon>
      <rect x="9" y="9" width="12" height="12" rx="2" />
      <path d="M5 15V5a2 2 0 0 1 2-2h10" />
    </Icon>
  );
}

function CheckIcon() {
  return (
    <Icon>
      <path d="M20 6 9 17l-5-5" />
    </Icon>
  );
}

export function EditIcon() {
  return (
    <Icon>
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Icon>
  );
}

export function RegenerateIcon() {
  return (
    <Icon>
      <path d="M21 12a9 9 0 1 1-2.6-6.4L21 8M21 3v5h-5" />
    </Icon>
  );
}

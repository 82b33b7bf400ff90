"use client";

import { useState, type ReactNode, type Ref } from "react";
import { IconButton } from "@/components/ui/button";
import { CheckIcon, CopyIcon } from "@/components/ui/icons";
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
    <IconButton
      ref={ref}
      label={label}
      onClick={onClick}
      disabled={disabled}
      className="grid size-8 place-items-center rounded-md hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-40 disabled:hover:bg-transparent dark:hover:bg-neutral-800 dark:hover:text-white"
    >
      {children}
    </IconButton>
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

"use client";

import { useRef, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";

/** A secret shown once (a new API token, a webhook endpoint's or a channel's signing secret), with Copy. */
export function SecretOnce({ title, secret, hint, onDismiss, children }: { title: string; secret: string; hint?: ReactNode; onDismiss: () => void; children?: ReactNode }) {
  const element = useRef<HTMLElement>(null);
  const [copyState, setCopyState] = useState<"idle" | "copied" | "manual">("idle");

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopyState("copied");
      return;
    } catch {
      // The Clipboard API needs a secure context; fall back to selecting the text.
    }
    const selection = window.getSelection();
    if (element.current && selection) {
      const range = document.createRange();
      range.selectNodeContents(element.current);
      selection.removeAllRanges();
      selection.addRange(range);
      setCopyState(document.execCommand("copy") ? "copied" : "manual");
    } else setCopyState("manual");
  }

  return (
    <div role="region" aria-label={title} className="rounded-lg border-2 border-amber-300 bg-amber-50 p-4 dark:border-amber-700/70 dark:bg-amber-950/40">
      <p className="text-sm font-semibold text-amber-900 dark:text-amber-200">{title}</p>
      <p className="mt-1 text-sm text-amber-900 dark:text-amber-200">Copy it now. You won&apos;t see it again.</p>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          ref={element}
          data-testid="shown-secret"
          className="min-w-0 flex-1 rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm break-all text-neutral-900 select-all dark:border-amber-900 dark:bg-neutral-950 dark:text-neutral-100"
        >
          {secret}
        </code>
        <div className="flex gap-2">
          <Button variant="secondary" size="sm" onClick={copy}>
            Copy
          </Button>
          <Button variant="ghost" size="sm" onClick={onDismiss}>
            Dismiss
          </Button>
        </div>
      </div>
      <p aria-live="polite" className="mt-2 text-xs text-amber-900 dark:text-amber-200">
        {copyState === "copied" ? "Copied to the clipboard." : copyState === "manual" ? "Select the secret and copy it with Ctrl+C (⌘C on a Mac)." : ""}
      </p>
      {hint ? <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">{hint}</p> : null}
      {children}
    </div>
  );
}

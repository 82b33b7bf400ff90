"use client";

import { useEffect, useMemo, useState } from "react";
import { highlight, type TTokenKind } from "./highlight";

const TOKEN_CLASSES: Record<TTokenKind, string | undefined> = {
  plain: undefined,
  keyword: "text-purple-700 dark:text-purple-300",
  string: "text-green-700 dark:text-green-300",
  comment: "text-neutral-500 italic dark:text-neutral-400",
  number: "text-amber-700 dark:text-amber-300",
  literal: "text-blue-700 dark:text-blue-300",
  function: "text-sky-700 dark:text-sky-300",
  type: "text-teal-700 dark:text-teal-300",
  property: "text-rose-700 dark:text-rose-300",
  tag: "text-rose-700 dark:text-rose-300",
  inserted: "text-green-700 dark:text-green-300",
  deleted: "text-red-700 dark:text-red-300",
  meta: "text-neutral-500 dark:text-neutral-400",
};

/** Clipboard API where the page is a secure context; the old selection trick elsewhere (plain http on a LAN). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the fallback
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

export function CodeBlock({ code, language }: { code: string; language: string }) {
  const tokens = useMemo(() => highlight(code, language), [code, language]);
  const [copyState, setCopyState] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    if (copyState === "idle") return;
    const timer = window.setTimeout(() => setCopyState("idle"), 2000);
    return () => window.clearTimeout(timer);
  }, [copyState]);

  const label = language || "text";

  return (
    <div className="my-3 overflow-hidden rounded-lg border border-neutral-200 bg-neutral-50 dark:border-neutral-800 dark:bg-neutral-900" data-testid="code-block">
      <div className="flex items-center justify-between gap-2 border-b border-neutral-200 py-1 pr-1 pl-3 dark:border-neutral-800">
        <span className="font-mono text-xs text-neutral-500 dark:text-neutral-400">{label}</span>
        <button
          type="button"
          onClick={async () => setCopyState((await copyText(code)) ? "copied" : "failed")}
          className="inline-flex h-7 items-center gap-1.5 rounded-md px-2 text-xs font-medium text-neutral-600 hover:bg-neutral-200/70 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-neutral-300 dark:hover:bg-neutral-800 dark:hover:text-white"
        >
          {copyState === "copied" ? <CheckIcon /> : <CopyIcon />}
          {copyState === "copied" ? "Copied" : copyState === "failed" ? "Copy failed" : "Copy"}
        </button>
        <span aria-live="polite" className="sr-only">
          {copyState === "copied" ? "Code copied to the clipboard." : copyState === "failed" ? "Could not copy the code." : ""}
        </span>
      </div>
      {/* Focusable so long lines can be scrolled with the keyboard. */}
      <pre tabIndex={0} className="overflow-x-auto p-3 font-mono text-[13px] leading-relaxed text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600 dark:text-neutral-100">
        <code>
          {tokens.map((token, index) => {
            const className = TOKEN_CLASSES[token.kind];
            return className ? (
              <span key={index} className={className}>
                {token.text}
              </span>
            ) : (
              token.text
            );
          })}
        </code>
      </pre>
    </div>
  );
}

function CopyIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <rect x="9" y="9" width="12" height="12" rx="2" />
      <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M20 6 9 17l-5-5" />
    </svg>
  );
}

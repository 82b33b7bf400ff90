"use client";

import { useId, useLayoutEffect, useRef, type FormEvent, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/button";

const COMMANDS = [
  { command: "/steps", hint: "list the steps of this chat" },
  { command: "/rollback", hint: "s0003 — drop that step and all after it" },
  { command: "/fork", hint: "s0003 [title] — a new chat up to that step" },
  { command: "/resume", hint: "continue an interrupted run" },
  { command: "/help", hint: "all commands" },
];

const MAX_HEIGHT = 200;

/**
 * The message box: Enter sends, Shift+Enter adds a line. While a reply streams, Send becomes Stop.
 * Text starting with "/" shows the slash commands, which are ordinary messages.
 */
export function ChatInput({
  value,
  onChange,
  onSend,
  onStop,
  busy,
  stopping,
  footer,
}: {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  busy: boolean;
  stopping: boolean;
  footer?: React.ReactNode;
}) {
  const id = useId();
  const textarea = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => {
    const element = textarea.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT)}px`;
  }, [value]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!busy) onSend();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (!busy) onSend();
    }
  };

  const commandQuery = /^\/\S*$/.test(value) ? value.toLowerCase() : undefined;
  const commands = commandQuery === undefined ? [] : COMMANDS.filter((item) => item.command.startsWith(commandQuery));
  const shellHint = value.startsWith("!");

  return (
    <form onSubmit={onSubmit}>
      {commands.length ? (
        <div className="mb-2 rounded-xl border border-neutral-200 bg-white p-1 dark:border-neutral-800 dark:bg-neutral-900">
          <p className="px-2 pt-1 pb-1.5 text-xs text-neutral-500 dark:text-neutral-400">Commands (sent as a message)</p>
          <ul>
            {commands.map((item) => (
              <li key={item.command}>
                <button
                  type="button"
                  className="flex w-full items-baseline gap-2 rounded-lg px-2 py-1.5 text-left text-sm hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:hover:bg-neutral-800"
                  onClick={() => {
                    onChange(`${item.command} `);
                    textarea.current?.focus();
                  }}
                >
                  <span className="font-mono font-medium text-neutral-900 dark:text-neutral-100">{item.command}</span>
                  <span className="truncate text-xs text-neutral-500 dark:text-neutral-400">{item.hint}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {shellHint ? (
        <p className="mb-2 rounded-xl border border-neutral-200 bg-white px-3 py-2 text-xs text-neutral-600 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-400">
          <code className="font-mono">!command</code> runs the command yourself in your sandbox, without the model.
        </p>
      ) : null}
      <div className="flex items-end gap-2 rounded-2xl border border-neutral-300 bg-white p-2 shadow-xs focus-within:border-blue-600 focus-within:outline-2 focus-within:outline-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900 dark:focus-within:border-blue-400 dark:focus-within:outline-blue-400/30">
        <label htmlFor={`${id}-message`} className="sr-only">
          Message
        </label>
        <textarea
          ref={textarea}
          id={`${id}-message`}
          name="message"
          rows={1}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Message xclaw…"
          aria-describedby={`${id}-hint`}
          autoComplete="off"
          className="max-h-[200px] min-h-10 flex-1 resize-none bg-transparent px-2 py-2 text-base text-neutral-900 placeholder:text-neutral-400 focus:outline-none sm:text-[15px] dark:text-neutral-100 dark:placeholder:text-neutral-500"
        />
        {busy ? (
          <Button type="button" variant="secondary" onClick={onStop} pending={stopping} className="shrink-0">
            {stopping ? null : <StopIcon />}
            Stop
          </Button>
        ) : (
          <Button type="submit" disabled={!value.trim()} className="shrink-0">
            Send
          </Button>
        )}
      </div>
      <div className="mt-1.5 flex flex-wrap items-center justify-between gap-x-3 gap-y-1 px-1 text-xs text-neutral-500 dark:text-neutral-400">
        <p id={`${id}-hint`}>
          <span className="hidden sm:inline">Enter to send, Shift+Enter for a new line. </span>
          Commands: <code className="font-mono">/steps</code>, <code className="font-mono">/rollback s0003</code>, <code className="font-mono">/fork s0003</code>,{" "}
          <code className="font-mono">/help</code>
        </p>
        {footer}
      </div>
    </form>
  );
}

function StopIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-3.5" fill="currentColor" aria-hidden="true">
      <rect x="6" y="6" width="12" height="12" rx="2" />
    </svg>
  );
}

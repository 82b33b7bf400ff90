"use client";

import type { DynamicToolUIPart } from "ai";
import { useState } from "react";
import type { TApprovalView, TToolOutput } from "./types";

type TToolState = "running" | "waiting" | "done" | "error";

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function formatInput(input: unknown): string {
  if (input === undefined) return "";
  if (typeof input === "string") return input;
  try {
    return JSON.stringify(input, null, 2);
  } catch {
    return String(input);
  }
}

/**
 * One tool call: its name, state, arguments (collapsed) and result. A call that is not part of the
 * reply being streamed and still has no result did not finish (stopped or interrupted).
 */
export function ToolCard({
  part,
  active,
  approval,
  progress,
}: {
  part: DynamicToolUIPart;
  active: boolean;
  approval?: TApprovalView["status"];
  /** The latest progress a running tool reported. */
  progress?: { text: string; fraction?: number };
}) {
  const [inputOpen, setInputOpen] = useState(false);
  const output = (part.state === "output-available" ? part.output : undefined) as TToolOutput | string | undefined;
  const result: TToolOutput | undefined = typeof output === "string" ? { text: output } : output;
  const finished = part.state === "output-available" || part.state === "output-error";
  const state: TToolState =
    part.state === "output-error" || result?.isError
      ? "error"
      : finished
        ? "done"
        : approval === "pending"
          ? "waiting"
          : approval === "denied" || approval === "expired"
            ? "error"
            : active || approval === "approved"
              ? "running"
              : "error";
  const statusText =
    state === "running"
      ? "Running…"
      : state === "waiting"
        ? "Waiting for approval"
        : state === "done"
          ? "Done"
          : approval === "denied" || approval === "expired"
            ? "Denied"
            : finished
              ? "Failed"
              : "Did not finish";
  const outputText = part.state === "output-error" ? part.errorText : result?.text;
  const input = formatInput(part.input);
  const details = [typeof result?.durationMs === "number" ? formatDuration(result.durationMs) : null, result?.step ?? null].filter(Boolean);

  return (
    <div
      data-testid="tool-card"
      data-state={state}
      className={[
        "my-3 overflow-hidden rounded-lg border text-sm",
        state === "error" ? "border-red-200 dark:border-red-900/70" : "border-neutral-200 dark:border-neutral-800",
      ].join(" ")}
    >
      <div
        className={[
          "flex flex-wrap items-center gap-x-2 gap-y-1 px-3 py-2",
          state === "error" ? "bg-red-50 dark:bg-red-950/40" : "bg-neutral-50 dark:bg-neutral-900",
        ].join(" ")}
      >
        <StateIcon state={state} />
        <span className="sr-only">Tool</span>
        <span className="font-mono font-medium text-neutral-900 dark:text-neutral-100">{part.toolName}</span>
        <span
          className={
            state === "error"
              ? "text-red-700 dark:text-red-300"
              : state === "done"
                ? "text-green-700 dark:text-green-400"
                : state === "waiting"
                  ? "text-amber-700 dark:text-amber-300"
                  : "text-neutral-600 dark:text-neutral-400"
          }
        >
          {statusText}
        </span>
        {details.length ? <span className="ml-auto font-mono text-xs text-neutral-500 dark:text-neutral-400">{details.join(" · ")}</span> : null}
      </div>
      {state === "running" && progress ? (
        <div className="flex items-center gap-2 border-t border-neutral-200 px-3 py-1.5 text-xs text-neutral-600 dark:border-neutral-800 dark:text-neutral-400" role="status">
          {typeof progress.fraction === "number" ? (
            <progress className="h-1.5 w-24 accent-blue-600" max={1} value={Math.min(1, Math.max(0, progress.fraction))} aria-label={`${Math.round(progress.fraction * 100)} %`} />
          ) : null}
          <span className="min-w-0 truncate">{progress.text}</span>
        </div>
      ) : null}
      {input && input !== "{}" ? (
        <details className="group border-t border-neutral-200 dark:border-neutral-800" onToggle={(event) => setInputOpen(event.currentTarget.open)}>
          <summary className="flex cursor-pointer list-none items-center gap-1.5 px-3 py-1.5 text-xs font-medium text-neutral-600 select-none hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600 dark:text-neutral-400 dark:hover:text-neutral-100 [&::-webkit-details-marker]:hidden">
            <svg viewBox="0 0 24 24" className="size-3 transition-transform group-open:rotate-90" fill="none" stroke="currentColor" strokeWidth="2.5" aria-hidden="true">
              <path d="m9 6 6 6-6 6" />
            </svg>
            Input
          </summary>
          {/* Rendered only when opened: collapsed, the arguments are not part of the conversation's text. */}
          {inputOpen ? (
            <pre tabIndex={0} className="max-h-64 overflow-auto px-3 pb-2 font-mono text-xs whitespace-pre-wrap text-neutral-800 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600 dark:text-neutral-200">
              {input}
            </pre>
          ) : null}
        </details>
      ) : null}
      {outputText ? (
        <div className="border-t border-neutral-200 px-3 py-2 dark:border-neutral-800">
          <p className="text-xs font-medium text-neutral-500 dark:text-neutral-400">Output</p>
          <pre
            tabIndex={0}
            className={[
              "mt-1 max-h-64 overflow-auto font-mono text-xs break-words whitespace-pre-wrap focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600",
              state === "error" ? "text-red-800 dark:text-red-200" : "text-neutral-800 dark:text-neutral-200",
            ].join(" ")}
          >
            {outputText}
          </pre>
        </div>
      ) : null}
      {result?.images?.length ? (
        <div className="flex flex-col gap-2 border-t border-neutral-200 px-3 py-2 dark:border-neutral-800">
          {result.images
            .filter((source) => source.startsWith("data:image/"))
            .map((source, index) => (
              // A data URL made by our own worker, not a remote image: next/image adds nothing here.
              // eslint-disable-next-line @next/next/no-img-element
              <img key={index} src={source} alt={`Screenshot ${index + 1} from ${part.toolName}`} className="max-h-96 w-full rounded border border-neutral-200 object-contain dark:border-neutral-800" />
            ))}
        </div>
      ) : null}
    </div>
  );
}

function StateIcon({ state }: { state: TToolState }) {
  if (state === "waiting") {
    return (
      <svg className="size-4 shrink-0 text-amber-600 dark:text-amber-400" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" aria-hidden="true">
        <circle cx="12" cy="12" r="9" />
        <path d="M12 7v5l3 2" />
      </svg>
    );
  }
  if (state === "running") {
    return (
      <svg className="size-4 shrink-0 animate-spin text-blue-600 dark:text-blue-400" viewBox="0 0 24 24" fill="none" aria-hidden="true">
        <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
        <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
    );
  }
  if (state === "done") {
    return (
      <svg className="size-4 shrink-0 text-green-600 dark:text-green-400" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
        <path d="M20 6 9 17l-5-5" />
      </svg>
    );
  }
  return (
    <svg className="size-4 shrink-0 text-red-600 dark:text-red-400" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" aria-hidden="true">
      <path d="M6 6l12 12M18 6 6 18" />
    </svg>
  );
}

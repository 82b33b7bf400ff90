"use client";

import { useState } from "react";
import { CheckIcon, ClockIcon, CloseIcon, DeniedIcon, DisclosureIcon, SpinnerIcon } from "@/components/ui/icons";
import { useLightbox } from "@/components/ui/image-lightbox";
import { ApprovalPanel } from "./approval-card";
import { readToolOutput } from "./message-model";
import type { TApprovalDecision, TApprovalView, TLocalDecision, TToolPart } from "./types";

/**
 * One tool call: its name, one state line, its arguments (collapsed), its result, and — when it
 * needed approval — the approval inside the same card. So there is one place that says where the
 * call stands: "Needs your approval", "Running…", "Done", "Not run: denied", "Did not finish".
 */
export type TToolState = "waiting" | "running" | "done" | "error" | "denied";

export type TToolCardProps = {
  part: TToolPart;
  /** A run of this chat is in progress and the call belongs to the reply being written. */
  active: boolean;
  approval?: TApprovalView;
  decided?: TLocalDecision;
  progress?: { text: string; fraction?: number; detail?: unknown };
  busy: boolean;
  onDecide: (approval: TApprovalView, decision: TApprovalDecision) => void;
};

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

export function toolState(options: { part: TToolPart; active: boolean; approvalStatus?: TApprovalView["status"] }): TToolState {
  const { part, active, approvalStatus } = options;
  const result = readToolOutput(part);
  const finished = part.state === "output-available" || part.state === "output-error";
  if (approvalStatus === "denied" || approvalStatus === "expired") return "denied";
  if (part.state === "output-error" || result?.isError) return "error";
  if (finished) return "done";
  if (approvalStatus === "pending") return "waiting";
  if (active) return "running";
  return "error";
}

const STATUS_CLASS: Record<TToolState, string> = {
  waiting: "text-amber-800 dark:text-amber-300",
  running: "text-neutral-600 dark:text-neutral-400",
  done: "text-green-700 dark:text-green-400",
  error: "text-red-700 dark:text-red-300",
  denied: "text-neutral-600 dark:text-neutral-400",
};

export function ToolCard({ part, active, approval, decided, progress, busy, onDecide }: TToolCardProps) {
  const [inputOpen, setInputOpen] = useState(false);
  const openImage = useLightbox();
  const approvalStatus = decided?.status ?? approval?.status;
  const state = toolState({ part, active, approvalStatus });
  const result = readToolOutput(part);
  const finished = part.state === "output-available" || part.state === "output-error";
  const statusText = {
    waiting: "Needs your approval",
    running: approvalStatus === "approved" ? "Approved · running…" : "Running…",
    done: "Done",
    error: finished ? "Failed" : "Did not finish",
    denied: approvalStatus === "expired" ? "Not run: the approval expired" : "Not run: denied",
  }[state];
  const outputText = part.state === "output-error" ? part.errorText : result?.text;
  const input = formatInput(part.input);
  const details = [typeof result?.durationMs === "number" ? formatDuration(result.durationMs) : null, result?.step ?? null].filter(Boolean);
  const images = result?.images ?? [];

  return (
    <div
      data-testid="tool-card"
      data-state={state}
      data-tool={part.toolName}
      className={[
        "my-3 overflow-hidden rounded-lg border text-sm",
        state === "error" ? "border-red-200 dark:border-red-900/70" : state === "waiting" ? "border-amber-300 dark:border-amber-800" : "border-neutral-200 dark:border-neutral-800",
      ].join(" ")}
    >
      <div
        className={[
          "flex flex-wrap items-center gap-x-2 gap-y-1 px-3 py-2",
          state === "error" ? "bg-red-50 dark:bg-red-950/40" : state === "waiting" ? "bg-amber-50 dark:bg-amber-950/40" : "bg-neutral-50 dark:bg-neutral-900",
        ].join(" ")}
      >
        <StateIcon state={state} />
        <span className="sr-only">Tool</span>
        <span className="font-mono font-medium break-all text-neutral-900 dark:text-neutral-100">{part.toolName}</span>
        <span data-testid="tool-status" className={STATUS_CLASS[state]}>
          {statusText}
        </span>
        {details.length ? <span className="ml-auto font-mono text-xs text-neutral-500 dark:text-neutral-400">{details.join(" · ")}</span> : null}
      </div>
      {approval ? <ApprovalPanel approval={approval} decided={decided} disabled={busy} onDecide={onDecide} /> : null}
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
            <DisclosureIcon size="xs" strokeWidth={2.5} className="transition-transform group-open:rotate-90" />
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
      {images.length ? (
        <div className="flex flex-col gap-2 border-t border-neutral-200 px-3 py-2 dark:border-neutral-800">
          {images.map((source, index) => {
            const alt = `Screenshot ${index + 1} from ${part.toolName}`;
            return (
              <button
                key={index}
                type="button"
                onClick={() => openImage({ src: source, alt })}
                aria-label={`Open ${alt} full size`}
                className="block cursor-zoom-in rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
              >
                {/* A data URL made by our own worker, not a remote image: next/image adds nothing here. */}
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={source} alt={alt} className="max-h-96 w-full rounded border border-neutral-200 object-contain dark:border-neutral-800" />
              </button>
            );
          })}
        </div>
      ) : null}
    </div>
  );
}

const STATE_ICONS: Record<TToolState, { Icon: typeof CheckIcon; className: string }> = {
  waiting: { Icon: ClockIcon, className: "text-amber-600 dark:text-amber-400" },
  running: { Icon: SpinnerIcon, className: "text-blue-600 dark:text-blue-400" },
  done: { Icon: CheckIcon, className: "text-green-600 dark:text-green-400" },
  denied: { Icon: DeniedIcon, className: "text-neutral-500 dark:text-neutral-400" },
  error: { Icon: CloseIcon, className: "text-red-600 dark:text-red-400" },
};

function StateIcon({ state }: { state: TToolState }) {
  const { Icon, className } = STATE_ICONS[state];
  return <Icon strokeWidth={2.5} className={className} />;
}

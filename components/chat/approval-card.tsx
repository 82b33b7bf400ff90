"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "./code-block";
import type { TApprovalDecision, TApprovalView } from "./types";

type TPreview = { title?: string; command?: string; path?: string; diff?: string; detail?: string; origin?: string };

/** An http(s) origin as URL writes it, or nothing: the card only offers to allow a real site. */
function webOrigin(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value ? value : undefined;
  } catch {
    return undefined;
  }
}

function readPreview(preview: unknown): TPreview {
  if (!preview || typeof preview !== "object") return {};
  const value = preview as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === "string" && value[key] ? (value[key] as string) : undefined);
  return { title: text("title"), command: text("command"), path: text("path"), diff: text("diff"), detail: text("detail"), origin: webOrigin(value.origin) };
}

const STATUS_TEXT: Record<TApprovalView["status"], string> = {
  pending: "Waiting for your approval",
  approved: "Approved",
  denied: "Denied",
  expired: "Expired: counted as denied",
};

const CHECKBOX = "size-4 shrink-0 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:accent-neutral-100 dark:focus-visible:outline-blue-400";

/**
 * A risky tool call the run paused for: what it would do, and Approve / Deny while it is pending.
 * When the call would send data to a site the chat does not allow yet (`preview.origin`), the card
 * says so and offers to allow that site for the rest of the chat.
 * `decided` is the decision just sent from this page, shown until the stored history catches up.
 */
export function ApprovalCard({
  approval,
  decided,
  disabled,
  onDecide,
}: {
  approval: TApprovalView;
  decided?: "approved" | "denied";
  disabled: boolean;
  onDecide: (approval: TApprovalView, decision: TApprovalDecision) => void;
}) {
  const [alwaysAllow, setAlwaysAllow] = useState(false);
  const [alwaysAllowSite, setAlwaysAllowSite] = useState(false);
  const destinationId = useId();
  const status = decided ?? approval.status;
  const preview = readPreview(approval.preview);
  const pending = status === "pending";
  const site = preview.origin ? new URL(preview.origin).host : undefined;

  return (
    <div
      data-testid="approval-card"
      data-status={status}
      role="group"
      aria-label={`Approval: ${preview.title ?? `Run ${approval.toolName}`}`}
      className={[
        "my-3 min-w-0 rounded-lg border px-3 py-3 text-sm",
        pending
          ? "border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
          : "border-neutral-200 bg-neutral-50 text-neutral-800 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-200",
      ].join(" ")}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <p className="font-semibold break-words">{preview.title ?? `Run ${approval.toolName}`}</p>
        <span className="font-mono text-xs opacity-80">
          {approval.toolName} · risk: {approval.risk}
        </span>
      </div>
      {preview.origin ? (
        <p id={destinationId} data-testid="approval-destination" className="mt-2 text-xs">
          Sends data to <strong className="font-mono break-all">{preview.origin}</strong>, a site this chat does not allow yet.
        </p>
      ) : null}
      {preview.command ? (
        <pre className="mt-2 overflow-x-auto rounded-md bg-white/70 px-2 py-1.5 font-mono text-xs whitespace-pre-wrap dark:bg-black/30">$ {preview.command}</pre>
      ) : null}
      {preview.path ? (
        <p className="mt-2 text-xs">
          File: <code className="font-mono">{preview.path}</code>
        </p>
      ) : null}
      {preview.diff ? <CodeBlock code={preview.diff} language="diff" /> : null}
      {preview.detail ? <p className="mt-2 text-xs [overflow-wrap:anywhere] whitespace-pre-wrap">{preview.detail}</p> : null}
      <p className="mt-2 text-xs font-medium" aria-live="polite">
        {STATUS_TEXT[status]}
        {status !== "pending" && approval.reason && !decided ? ` — ${approval.reason}` : ""}
      </p>
      {pending ? (
        <>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <Button
              size="sm"
              disabled={disabled}
              aria-describedby={preview.origin ? destinationId : undefined}
              onClick={() => onDecide(approval, { decision: "approve", alwaysAllow, ...(site ? { alwaysAllowSite } : {}) })}
            >
              Approve
            </Button>
            <Button size="sm" variant="danger" disabled={disabled} onClick={() => onDecide(approval, { decision: "deny" })}>
              Deny
            </Button>
          </div>
          <div className="mt-2 flex flex-col gap-1.5 text-xs">
            {site ? (
              <label className="inline-flex min-h-6 items-start gap-2">
                <input type="checkbox" checked={alwaysAllowSite} onChange={(event) => setAlwaysAllowSite(event.target.checked)} className={`mt-px ${CHECKBOX}`} />
                <span className="min-w-0 [overflow-wrap:anywhere]">
                  Always allow <span className="font-mono">{site}</span> in this chat
                </span>
              </label>
            ) : null}
            <label className="inline-flex min-h-6 items-start gap-2">
              <input type="checkbox" checked={alwaysAllow} onChange={(event) => setAlwaysAllow(event.target.checked)} className={`mt-px ${CHECKBOX}`} />
              <span className="min-w-0 [overflow-wrap:anywhere]">
                Always allow {approval.toolName} in this chat{site ? " (on any site)" : ""}
              </span>
            </label>
          </div>
        </>
      ) : null}
    </div>
  );
}

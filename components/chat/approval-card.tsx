"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { DiffView } from "./diff-view";
import { readApprovalPreview } from "./message-model";
import type { TApprovalDecision, TApprovalView, TLocalDecision } from "./types";

const CHECKBOX = "size-4 shrink-0 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:accent-neutral-100 dark:focus-visible:outline-blue-400";

function decidedText(status: TApprovalView["status"], reason: string | null | undefined): string {
  if (status === "approved") return "You approved this.";
  if (status === "denied") return reason ? `Denied: ${reason.replace(/\.$/, "")}.` : "You denied this.";
  if (status === "expired") return "Nobody decided in time, so it counted as denied.";
  return "";
}

/**
 * What a risky tool call would do, inside its tool card, with Approve / Deny while it waits. The
 * card's state line says that it waits; this panel shows what and offers the choice. When the
 * call would send data to a site the chat does not allow yet (`preview.origin`), it says so and
 * offers to allow that site for the rest of the chat. `decided` is the decision just made on this
 * page, shown until the stored history catches up.
 */
export function ApprovalPanel({
  approval,
  decided,
  disabled,
  onDecide,
}: {
  approval: TApprovalView;
  decided?: TLocalDecision;
  disabled: boolean;
  onDecide: (approval: TApprovalView, decision: TApprovalDecision) => void;
}) {
  const [alwaysAllow, setAlwaysAllow] = useState(false);
  const [alwaysAllowSite, setAlwaysAllowSite] = useState(false);
  const destinationId = useId();
  const status = decided?.status ?? approval.status;
  const reason = decided ? decided.reason : approval.reason;
  const preview = readApprovalPreview(approval.preview);
  const pending = status === "pending";
  const site = preview.origin ? new URL(preview.origin).host : undefined;
  const title = preview.title ?? `Run ${approval.toolName}`;

  return (
    <div
      data-testid="approval-card"
      data-status={status}
      role="group"
      aria-label={`Approval: ${title}`}
      className={[
        "min-w-0 border-t px-3 py-3 text-sm",
        pending ? "border-amber-200 bg-amber-50/60 text-amber-950 dark:border-amber-900 dark:bg-amber-950/20 dark:text-amber-100" : "border-neutral-200 text-neutral-800 dark:border-neutral-800 dark:text-neutral-200",
      ].join(" ")}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <p className="font-semibold break-words">{title}</p>
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
      {preview.diff ? <DiffView diff={preview.diff} /> : null}
      {preview.detail ? <p className="mt-2 text-xs [overflow-wrap:anywhere] whitespace-pre-wrap">{preview.detail}</p> : null}
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
      ) : (
        <p data-testid="approval-decision" className="mt-2 text-xs font-medium">
          {decidedText(status, reason)}
        </p>
      )}
    </div>
  );
}

/** An approval whose tool call is not in the conversation (it was rolled back): the panel alone. */
export function ApprovalCard(props: Parameters<typeof ApprovalPanel>[0]) {
  return (
    <div className="my-3 overflow-hidden rounded-lg border border-neutral-200 dark:border-neutral-800">
      <ApprovalPanel {...props} />
    </div>
  );
}

"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "./code-block";
import type { TApprovalDecision, TApprovalView } from "./types";

type TPreview = { title?: string; command?: string; path?: string; diff?: string; detail?: string };

function readPreview(preview: unknown): TPreview {
  if (!preview || typeof preview !== "object") return {};
  const value = preview as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === "string" && value[key] ? (value[key] as string) : undefined);
  return { title: text("title"), command: text("command"), path: text("path"), diff: text("diff"), detail: text("detail") };
}

const STATUS_TEXT: Record<TApprovalView["status"], string> = {
  pending: "Waiting for your approval",
  approved: "Approved",
  denied: "Denied",
  expired: "Expired: counted as denied",
};

/**
 * A risky tool call the run paused for: what it would do, and Approve / Deny while it is pending.
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
  const status = decided ?? approval.status;
  const preview = readPreview(approval.preview);
  const pending = status === "pending";

  return (
    <div
      data-testid="approval-card"
      data-status={status}
      className={[
        "my-3 rounded-lg border px-3 py-3 text-sm",
        pending
          ? "border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
          : "border-neutral-200 bg-neutral-50 text-neutral-800 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-200",
      ].join(" ")}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <p className="font-semibold">{preview.title ?? `Run ${approval.toolName}`}</p>
        <span className="font-mono text-xs opacity-80">
          {approval.toolName} · risk: {approval.risk}
        </span>
      </div>
      {preview.command ? (
        <pre className="mt-2 overflow-x-auto rounded-md bg-white/70 px-2 py-1.5 font-mono text-xs whitespace-pre-wrap dark:bg-black/30">$ {preview.command}</pre>
      ) : null}
      {preview.path ? (
        <p className="mt-2 text-xs">
          File: <code className="font-mono">{preview.path}</code>
        </p>
      ) : null}
      {preview.diff ? <CodeBlock code={preview.diff} language="diff" /> : null}
      {preview.detail ? <p className="mt-2 text-xs break-words whitespace-pre-wrap">{preview.detail}</p> : null}
      <p className="mt-2 text-xs font-medium">
        {STATUS_TEXT[status]}
        {status !== "pending" && approval.reason && !decided ? ` — ${approval.reason}` : ""}
      </p>
      {pending ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Button size="sm" disabled={disabled} onClick={() => onDecide(approval, { decision: "approve", alwaysAllow })}>
            Approve
          </Button>
          <Button size="sm" variant="danger" disabled={disabled} onClick={() => onDecide(approval, { decision: "deny" })}>
            Deny
          </Button>
          <label className="ml-1 inline-flex items-center gap-1.5 text-xs">
            <input type="checkbox" checked={alwaysAllow} onChange={(event) => setAlwaysAllow(event.target.checked)} className="size-3.5" />
            Always allow {approval.toolName} in this chat
          </label>
        </div>
      ) : null}
    </div>
  );
}

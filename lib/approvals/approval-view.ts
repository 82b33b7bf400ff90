import type { Approval } from "@/lib/db/generated/client";
import type { TApprovalView } from "@/lib/wire/chat";

/**
 * What an approval view is made of: a stored approval row, or the request a run has just announced
 * (status PENDING, no reason yet) before the browser could read the row.
 */
export type TApprovalSource = Pick<Approval, "id" | "toolCallId" | "toolName" | "risk" | "status" | "reason" | "expiresAt"> & { preview: unknown };

/**
 * An approval as the chat shows it, the one place that builds it: the live stream (ui-stream.ts),
 * the stored history (ui-messages.ts) and a worker's card (lib/agents/fan-out.ts) all call this.
 * A pending one past its expiry already reads "expired".
 */
export function toApprovalView(approval: TApprovalSource): TApprovalView {
  const expired = approval.status === "PENDING" && approval.expiresAt.getTime() < Date.now();
  return {
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    toolName: approval.toolName,
    risk: approval.risk,
    preview: approval.preview,
    status: expired ? "expired" : (approval.status.toLowerCase() as TApprovalView["status"]),
    reason: approval.reason,
    expiresAt: approval.expiresAt.toISOString(),
  };
}

import type { Approval } from "@/lib/db/generated/client";
import type { TApprovalView } from "@/lib/wire/chat";

/** An approval as the chat shows it; a pending one past its expiry already reads "expired". */
export function toApprovalView(approval: Approval): TApprovalView {
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

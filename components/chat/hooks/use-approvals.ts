"use client";

import { useCallback, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import type { TApprovalDecision, TApprovalView, TLocalDecision } from "../types";

/**
 * Approve / Deny on this page. The decision shows at once (the card, the tool's state and the
 * composer all read it from here) while the server records it and starts the run's continuation,
 * which the page then follows (`onDecided`). A refused decision is taken back and said why.
 * A message sent while an approval waits declines it (the server does the same), so the card says
 * so instead of still offering buttons.
 */
export function useApprovals({ sessionId, onDecided }: { sessionId: string; onDecided: () => Promise<void> | void }) {
  const [decisions, setDecisions] = useState<Record<string, TLocalDecision>>({});
  const [error, setError] = useState<string>();
  // From the click until the continuation has been followed to its end: the approved call runs.
  const [deciding, setDeciding] = useState(false);

  const decide = useCallback(
    async (approval: TApprovalView, decision: TApprovalDecision) => {
      setError(undefined);
      setDeciding(true);
      setDecisions((current) => ({ ...current, [approval.approvalId]: { status: decision.decision === "approve" ? "approved" : "denied" } }));
      try {
        // The answer streams the continuation; the page follows the run itself instead.
        await apiRequest(`/api/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approval.approvalId)}`, {
          method: "POST",
          body: decision,
          discardBody: true,
        });
      } catch (caught) {
        setDecisions((current) => {
          const next = { ...current };
          delete next[approval.approvalId];
          return next;
        });
        setError(errorMessage(caught));
        setDeciding(false);
        return;
      }
      try {
        await onDecided();
      } finally {
        setDeciding(false);
      }
    },
    [sessionId, onDecided],
  );

  const declineForMessage = useCallback((approval: TApprovalView) => {
    setDecisions((current) => ({ ...current, [approval.approvalId]: { status: "denied", reason: "you sent a new message instead" } }));
  }, []);

  return { decisions, deciding, decide, declineForMessage, error, clearError: () => setError(undefined) };
}

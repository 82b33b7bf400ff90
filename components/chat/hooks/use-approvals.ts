"use client";

import { useCallback, useState } from "react";
import { errorMessage } from "@/components/api-request";
import type { TApprovalDecision, TApprovalView, TLocalDecision } from "../types";
import type { TFollowedRequest } from "./use-chat-run";

/**
 * Approve / Deny on this page. The decision shows at once (the card, the tool's state and the
 * composer all read it from here); its POST records it and answers with the run's continuation,
 * which the page follows from that same answer (`follow`, use-chat-run.ts): one request per click.
 * A refused decision is taken back and said why. A message sent while an approval waits declines
 * it (the server does the same), so the card says so instead of still offering buttons.
 */
export function useApprovals({
  sessionId,
  follow,
  onAccepted,
}: {
  sessionId: string;
  follow: (request: TFollowedRequest) => Promise<void>;
  /** The server took the decision; its continuation streams next. */
  onAccepted: () => void;
}) {
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
        await follow({ path: `/api/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approval.approvalId)}`, body: decision, onAccepted });
      } catch (caught) {
        setDecisions((current) => {
          const next = { ...current };
          delete next[approval.approvalId];
          return next;
        });
        setError(errorMessage(caught));
      } finally {
        setDeciding(false);
      }
    },
    [sessionId, follow, onAccepted],
  );

  const declineForMessage = useCallback((approval: TApprovalView) => {
    setDecisions((current) => ({ ...current, [approval.approvalId]: { status: "denied", reason: "you sent a new message instead" } }));
  }, []);

  return { decisions, deciding, decide, declineForMessage, error, clearError: () => setError(undefined) };
}

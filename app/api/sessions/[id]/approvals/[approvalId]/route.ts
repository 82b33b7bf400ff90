import { requireUser } from "@/lib/auth/authenticate";
import { messageResultResponse } from "@/lib/channels/web/web-channel";
import { readJson, route } from "@/lib/http/route";
import { decideApproval } from "@/lib/runs/decide-approval";
import { ZApprovalDecision } from "@/lib/wire/approvals";

export const maxDuration = 800;

// Approve or deny a pending tool call; the response streams the run's continuation.
export const POST = route<{ id: string; approvalId: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZApprovalDecision);
  return messageResultResponse(await decideApproval({ userId: user.id, sessionId: params.id, approvalId: params.approvalId, ...input, instructions: user.instructions }), request.signal);
});

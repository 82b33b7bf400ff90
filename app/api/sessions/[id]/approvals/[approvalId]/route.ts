import { decideApproval, ZApprovalDecision } from "@/lib/approvals/decide-approval";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { uiStreamResponse } from "@/lib/sessions/ui-stream";

export const maxDuration = 800;

// Approve or deny a pending tool call; the response streams the run's continuation.
export const POST = route<{ id: string; approvalId: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZApprovalDecision);
  const { stream } = await decideApproval({ userId: user.id, sessionId: params.id, approvalId: params.approvalId, signal: request.signal, ...input });
  return uiStreamResponse(stream);
});

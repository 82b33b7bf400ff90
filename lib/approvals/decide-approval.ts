import type { UIMessageChunk } from "ai";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { toApprovalView, type TApprovalView } from "@/lib/sessions/history";
import { followRun, startRun, type TStartRunOptions } from "@/lib/sessions/run-session";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import { textReply, toUiChunks } from "@/lib/sessions/ui-stream";

/**
 * The owner's Approve / Deny. Only the session owner can decide (anyone else gets 404, as if the
 * approval did not exist); deciding twice changes nothing; an expired approval counts as denied.
 * The decision resumes the paused run and its continuation streams back.
 */
export const ZApprovalDecision = z.strictObject({
  decision: z.enum(["approve", "deny"], { error: 'decision must be "approve" or "deny".' }),
  reason: z.string().trim().max(2_000, "The reason is at most 2,000 characters.").optional(),
  /** "Always allow this tool in this session". */
  alwaysAllow: z.boolean().optional(),
});
export type TApprovalDecision = z.infer<typeof ZApprovalDecision>;

export async function decideApproval(
  options: { userId: string; sessionId: string; approvalId: string; signal?: AbortSignal } & TApprovalDecision & Pick<TStartRunOptions, "providers" | "tools">,
): Promise<{ approval: TApprovalView; stream: AsyncIterable<UIMessageChunk> }> {
  const session = await getSessionOrThrow(options);
  const id = z.uuid().safeParse(options.approvalId);
  const approval = id.success ? await db().approval.findFirst({ where: { id: id.data, sessionId: session.id, userId: options.userId } }) : null;
  if (!approval) throw new AppError("not_found", "No such approval.");
  if (approval.status !== "PENDING") {
    return { approval: toApprovalView(approval), stream: textReply(`This action was already ${approval.status.toLowerCase()}; nothing changed.`) };
  }
  const expired = approval.expiresAt.getTime() < Date.now();
  const decision = expired ? "deny" : options.decision;
  const reason = expired ? "the approval expired before anyone decided" : options.reason;
  // Conditional on PENDING, so two simultaneous decisions cannot both resume the run.
  const { count } = await db().approval.updateMany({
    where: { id: approval.id, status: "PENDING" },
    data: { status: expired ? "EXPIRED" : decision === "approve" ? "APPROVED" : "DENIED", reason: reason ?? null, decidedAt: new Date() },
  });
  const updated = await db().approval.findUniqueOrThrow({ where: { id: approval.id } });
  if (count === 0) return { approval: toApprovalView(updated), stream: textReply("This action was already decided; nothing changed.") };
  if (options.alwaysAllow && decision === "approve" && !session.allowedTools.includes(approval.toolName)) {
    await db().chatSession.update({ where: { id: session.id }, data: { allowedTools: { push: approval.toolName } } });
  }
  await startRun({
    session,
    input: { kind: "approval", approvalId: approval.id, decision, reason },
    providers: options.providers,
    tools: options.tools,
  });
  return { approval: toApprovalView(updated), stream: toUiChunks(followRun(session.id, options.signal)) };
}

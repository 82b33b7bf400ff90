import { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import type { TApprovalDecision } from "@/lib/wire/approvals";
import type { TMessageResult } from "./message-result";
import type { TStartOverrides } from "./resume-session";
import { startRun } from "./start-run";
import { requireProviders } from "./require-providers";

/**
 * The owner's Approve / Deny. Only the session owner can decide (anyone else gets 404, as if the
 * approval did not exist); deciding twice changes nothing; an expired approval counts as denied.
 * Providers are checked before anything is recorded, and the decision is recorded in the same
 * statement that claims the session for the run that acts on it (claim-session.ts), so a session
 * can never be left with a decided approval and no run. The decision's schema is shared with the
 * chat page (lib/wire/approvals.ts).
 */
const EXPIRED_REASON = "the approval expired before anyone decided";

/** The origin on the stored card, if it names a valid http(s) origin. */
function originOfPreview(preview: unknown): string | undefined {
  const origin = (preview as { origin?: unknown } | null)?.origin;
  if (typeof origin !== "string") return undefined;
  try {
    const url = new URL(origin);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === origin ? origin : undefined;
  } catch {
    return undefined;
  }
}

function alreadyDecided(status: string): TMessageResult {
  return { kind: "reply", text: `This action was already ${status.toLowerCase()}; nothing changed.` };
}

export async function decideApproval(options: { userId: string; sessionId: string; approvalId: string } & TApprovalDecision & TStartOverrides): Promise<TMessageResult> {
  const session = await getSessionOrThrow(options);
  const id = z.uuid().safeParse(options.approvalId);
  const approval = id.success ? await db().approval.findFirst({ where: { id: id.data, sessionId: session.id, userId: options.userId } }) : null;
  if (!approval) throw new AppError("not_found", "No such approval.");
  if (approval.status !== "PENDING") return alreadyDecided(approval.status);
  requireProviders(options.providers);
  const expired = approval.expiresAt.getTime() < Date.now();
  const decision = expired ? "deny" : options.decision;
  try {
    const run = await startRun({
      session: { id: session.id, userId: session.userId },
      input: {
        kind: "approval",
        approvalId: approval.id,
        decision,
        reason: expired ? EXPIRED_REASON : options.reason,
        expired,
        alwaysAllowTool: options.alwaysAllow && decision === "approve" ? approval.toolName : undefined,
        alwaysAllowOrigin: options.alwaysAllowSite && decision === "approve" ? originOfPreview(approval.preview) : undefined,
      },
      trigger: "web",
      limits: options.instructions ? { instructions: options.instructions } : undefined,
      providers: options.providers,
      tools: options.tools,
    });
    return { kind: "run", run };
  } catch (error) {
    if (!isAppError(error) || error.code !== "conflict") throw error;
    // Someone decided first (a double click, another tab): say so instead of failing.
    const current = await db().approval.findUniqueOrThrow({ where: { id: approval.id } });
    if (current.status !== "PENDING") return alreadyDecided(current.status);
    throw error;
  }
}

import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { plainTitle } from "@/lib/sessions/titles";
import type { TMessageAttachment } from "@/lib/sessions/user-content";
import { claimIdleSession, claimPausedForDecision, claimPausedForMessage, runningRunsOf, type TClaim } from "./claim-session";
import { markInterruptedIfStale } from "./run-lease";
import type { TRunInput, TSessionRef } from "./run-types";
import { noteRunRefused } from "./run-observers";

/**
 * The first thing a run does: claim its session for this input (claim-session.ts), and when the
 * claim fails, find out why and say so in words the person can act on.
 */
export const RESUME_INSTRUCTION =
  "[The previous run was interrupted by a server restart. Continue the task from the conversation above. Tool calls marked as interrupted did not complete and were not re-run: check their effect before repeating them.]";

export const SESSION_BUSY = "This session is already running. Wait for it to finish or press Stop.";

/** A claim, and the approval a message was sent instead of (it is denied before the run goes on). */
export type TClaimed = TClaim & { deniedForMessage?: string };

export function titleFrom(text: string): string | null {
  return plainTitle(text) || null;
}

/** The USER_INPUT step of a message: its text and, when files were attached, those. */
export function userStepInput(input: Extract<TRunInput, { kind: "message" | "prompt" }>): { text: string; attachments?: TMessageAttachment[] } {
  return input.kind === "message" && input.attachments?.length ? { text: input.text, attachments: input.attachments } : { text: input.text };
}

export async function claimForInput(session: TSessionRef, input: TRunInput, runId: string, parentStepId?: string, retry = true): Promise<TClaimed> {
  let claimed: TClaimed | undefined;
  if (input.kind === "approval") {
    claimed = await claimPausedForDecision({
      session,
      runId,
      approvalId: input.approvalId,
      status: input.expired ? "EXPIRED" : input.decision === "approve" ? "APPROVED" : "DENIED",
      reason: input.reason ?? null,
      alwaysAllowTool: input.alwaysAllowTool ?? null,
      alwaysAllowOrigin: input.alwaysAllowOrigin ?? null,
    });
    if (!claimed) throw new AppError("conflict", "This action was already decided, or the session is no longer waiting for it.");
    return claimed;
  }
  const maxRunsPerUser = getBehaviourConfig().runs.maxConcurrentPerUser;
  claimed = await claimIdleSession({
    session,
    runId,
    title: input.kind === "message" ? titleFrom(input.text) : null,
    step:
      input.kind === "resume"
        ? { type: "SYSTEM_NOTE", name: "resume", input: { text: RESUME_INSTRUCTION, forModel: true, tone: "info" } }
        : { type: "USER_INPUT", name: input.kind === "prompt" ? "prompt" : "user", input: userStepInput(input), parentStepId },
    withModelStep: input.kind !== "resume",
    maxRunsPerUser,
  });
  if (claimed) return claimed;
  const current = await db().chatSession.findFirst({ where: { id: session.id, userId: session.userId } });
  if (!current) throw new AppError("not_found", "No such session.");
  if (current.status !== "RUNNING" && current.status !== "PAUSED") {
    // The session was free, so the owner's limit of runs at once refused it.
    const running = await runningRunsOf(session.userId);
    noteRunRefused("user_limit");
    throw new AppError("rate_limited", `You have ${running} runs going at once, the most allowed (runs.maxConcurrentPerUser = ${maxRunsPerUser}). Wait for one to finish, then try again.`, {
      headers: { "retry-after": "5" },
    });
  }
  if (current.status === "PAUSED" && input.kind === "message") {
    const reason = "The user did not decide on this call and sent a new message instead.";
    const paused = await claimPausedForMessage({ session, runId, input: userStepInput(input), reason });
    if (paused) return { ...paused, deniedForMessage: paused.approvalId };
  }
  if (current.status === "PAUSED") throw new AppError("conflict", "This session is waiting for your approval. Approve or deny the pending action first.");
  if (retry && current.status === "RUNNING" && (await markInterruptedIfStale(current)).status !== "RUNNING") return claimForInput(session, input, runId, parentStepId, false);
  throw new AppError("conflict", SESSION_BUSY);
}

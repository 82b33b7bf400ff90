import { DIRECT_PROFILE, type TDirectProfile } from "@/lib/agents/run-profile";
import { db } from "@/lib/db/client";
import type { ChatSession, Prisma } from "@/lib/db/generated/client";
import { createSession, getSessionOrThrow } from "@/lib/sessions/sessions";
import { plainTitle } from "@/lib/sessions/titles";

/**
 * Which session a request talks to, and the approvals API clients wait for. A request names the
 * session to continue (X-Xclaw-Session, else `user`); another user's session, or one that does not
 * exist, is "not found" like everywhere else. Without one, every request starts a session of its
 * own (trigger API), bound to the requested agent for all its later runs.
 */
export async function sessionForRequest(options: { userId: string; sessionId: string | undefined; agent: string | null; lastUserText: string }): Promise<{ session: ChatSession; created: boolean }> {
  if (options.sessionId) return { session: await getSessionOrThrow({ userId: options.userId, sessionId: options.sessionId }), created: false };
  const profile: TDirectProfile | undefined = options.agent ? { kind: DIRECT_PROFILE, agent: options.agent } : undefined;
  const session = await createSession({
    userId: options.userId,
    trigger: "api",
    // Titled from the new message, not from a transcript of earlier ones written above it.
    title: plainTitle(options.lastUserText) || undefined,
    runProfile: profile as Prisma.InputJsonValue | undefined,
  });
  return { session, created: true };
}

export type TWaitedApproval = { approvalId: string; status: string; toolName: string; stepSeq: number };

/**
 * The approval this session's API client waits for, if any: the one it was told about, or the one
 * a session continued from the web chat is paused on (from now on the client waits for it too, so
 * an API message never denies a call any more than it approves one).
 */
export async function waitedApprovalOf(options: { userId: string; sessionId: string }): Promise<TWaitedApproval | undefined> {
  let wait = await db().apiSessionWait.findFirst({ where: { sessionId: options.sessionId, userId: options.userId } });
  if (!wait) {
    const pending = await db().approval.findFirst({ where: { sessionId: options.sessionId, userId: options.userId, status: "PENDING", session: { status: "PAUSED" } }, orderBy: { createdAt: "desc" } });
    if (!pending) return undefined;
    await recordWait({ ...options, approvalId: pending.id });
    wait = { sessionId: options.sessionId, userId: options.userId, approvalId: pending.id, createdAt: new Date() };
  }
  const approval = await db().approval.findFirst({ where: { id: wait.approvalId, userId: options.userId }, include: { step: { select: { seq: true } } } });
  if (!approval) {
    await takeWait({ ...options, approvalId: wait.approvalId });
    return undefined;
  }
  return { approvalId: approval.id, status: approval.status, toolName: approval.toolName, stepSeq: approval.step.seq };
}

export async function recordWait(options: { userId: string; sessionId: string; approvalId: string }): Promise<void> {
  await db().apiSessionWait.upsert({
    where: { sessionId: options.sessionId },
    create: { sessionId: options.sessionId, userId: options.userId, approvalId: options.approvalId },
    update: { approvalId: options.approvalId, createdAt: new Date() },
  });
}

/** Takes the wait once: of two requests at the same moment, one gets the rest of the answer. */
export async function takeWait(options: { userId: string; sessionId: string; approvalId: string }): Promise<boolean> {
  const taken = await db().apiSessionWait.deleteMany({ where: { sessionId: options.sessionId, userId: options.userId, approvalId: options.approvalId } });
  return taken.count > 0;
}

import { z } from "zod";
import { releaseSessionResources } from "@/lib/capabilities/installed-capabilities";
import { db } from "@/lib/db/client";
import type { ChannelKind, ChatSession, Prisma, RunTrigger } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import type { TRunTriggerName, TSessionStatus, TSessionSummary } from "@/lib/wire/chat";

/** Chat sessions, always looked up together with their owner: another user's id is simply "not found". */
export const ZSessionTitle = z.string().trim().min(1, "The title cannot be empty.").max(200, "Titles are at most 200 characters.");

export function stepKey(seq: number): string {
  return `s${String(seq).padStart(4, "0")}`;
}

export function triggerName(trigger: RunTrigger): TRunTriggerName {
  return trigger.toLowerCase() as TRunTriggerName;
}

export function toSessionSummary(session: ChatSession): TSessionSummary {
  return {
    id: session.id,
    title: session.title,
    status: session.status.toLowerCase() as TSessionStatus,
    statusReason: session.statusReason,
    trigger: triggerName(session.trigger),
    parentSessionId: session.parentSessionId,
    forkedFromStep: session.forkedFromSeq ? stepKey(session.forkedFromSeq) : null,
    lastProvider: session.lastProvider,
    lastModel: session.lastModel,
    model: session.model,
    channel: session.channelKind ? { kind: session.channelKind === "QQ" ? "qq" : "feishu", accountId: session.channelAccountId } : null,
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
  };
}

export async function createSession(options: {
  userId: string;
  title?: string;
  trigger?: TRunTriggerName;
  parentSessionId?: string;
  /** Sites the new session may send data to from the start (a sub-agent inherits its parent's). */
  allowedOrigins?: readonly string[];
  /** What every run of the session works under (a worker's profile, a team; lib/agents). */
  runProfile?: Prisma.InputJsonValue;
  /** A session started from a chat channel: the platform and the bot account. */
  channel?: { kind: ChannelKind; accountId: string };
}): Promise<ChatSession> {
  return db().chatSession.create({
    data: {
      userId: options.userId,
      title: storableText(options.title ?? "New chat").slice(0, 200),
      trigger: (options.trigger ?? "web").toUpperCase() as RunTrigger,
      parentSessionId: options.parentSessionId,
      allowedOrigins: options.allowedOrigins ? [...options.allowedOrigins] : undefined,
      runProfile: options.runProfile,
      channelKind: options.channel?.kind,
      channelAccountId: options.channel?.accountId,
    },
  });
}

/**
 * "New chat": the owner's newest chat that is still empty (never used, not renamed, not a fork or
 * a job's session) is opened again instead of adding one more "New chat" to the sidebar.
 */
export async function openNewChat(options: { userId: string }): Promise<{ session: ChatSession; reused: boolean }> {
  const empty = await db().chatSession.findFirst({
    where: { userId: options.userId, status: "INIT", nextSeq: 1, trigger: "WEB", parentSessionId: null, titleEdited: false },
    orderBy: { createdAt: "desc" },
  });
  if (empty) return { session: await db().chatSession.update({ where: { id: empty.id }, data: { updatedAt: new Date() } }), reused: true };
  return { session: await createSession({ userId: options.userId }), reused: false };
}

/**
 * What the sidebar lists: the chats (newest 200), then the newest runs of scheduled jobs and
 * alerts in a group of their own — a job that runs every five minutes must not push the chats out.
 * Multi-agent workers are opened from their parent chat's card, so they are not listed.
 */
export async function listSidebarSessions(options: { userId: string }): Promise<ChatSession[]> {
  const [chats, unattended] = await Promise.all([
    listSessions({ userId: options.userId, excludeTriggers: ["job", "webhook", "agent"] }),
    db().chatSession.findMany({ where: { userId: options.userId, trigger: { in: ["JOB", "WEBHOOK"] } }, orderBy: { updatedAt: "desc" }, take: 20 }),
  ]);
  return [...chats, ...unattended];
}

/** `excludeTriggers`: the sidebar leaves out the sessions of unattended runs (jobs, webhooks); their pages link to them. */
export async function listSessions(options: { userId: string; limit?: number; excludeTriggers?: readonly TRunTriggerName[] }): Promise<ChatSession[]> {
  const excluded = (options.excludeTriggers ?? []).map((trigger) => trigger.toUpperCase() as RunTrigger);
  return db().chatSession.findMany({
    where: { userId: options.userId, ...(excluded.length ? { trigger: { notIn: excluded } } : {}) },
    orderBy: { updatedAt: "desc" },
    take: options.limit ?? 200,
  });
}

export async function getSessionOrThrow(options: { userId: string; sessionId: string }): Promise<ChatSession> {
  const id = z.uuid().safeParse(options.sessionId);
  const session = id.success ? await db().chatSession.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!session) throw new AppError("not_found", "No such session.");
  return session;
}

/**
 * A title the owner chose: kept from now on (never summarised again), and the chat keeps its place
 * in the list (the list is ordered by activity, and renaming is not activity).
 */
export async function renameSession(options: { userId: string; sessionId: string; title: string }): Promise<ChatSession> {
  const session = await getSessionOrThrow(options);
  return db().chatSession.update({ where: { id: session.id }, data: { title: storableText(options.title), titleEdited: true, updatedAt: session.updatedAt } });
}

/**
 * Deletes a session and then releases what it held (sandbox, browser context, and whatever later
 * capabilities keep per session) through the capabilities' one "session deleted" hook.
 */
export async function deleteSession(options: { userId: string; sessionId: string }): Promise<void> {
  const session = await getSessionOrThrow(options);
  if (session.status === "RUNNING") throw new AppError("conflict", "This session is running. Stop it before deleting it.");
  await db().chatSession.delete({ where: { id: session.id } });
  await releaseSessionResources({ userId: options.userId, sessionId: session.id });
}

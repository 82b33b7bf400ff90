import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { createSession } from "@/lib/sessions/sessions";
import type { TChannelKindName } from "@/lib/wire/channels";
import { chatScopeOf, type TInboundMessage } from "./inbound-message";

/**
 * The conversation → session map: one session per (bot, chat, xclaw user). In a group every bound
 * member has a session of their own, so one member's messages never reach another's session.
 * `/new` points the conversation at a fresh session; the old one stays in the person's web chat.
 */
export type TConversation = { id: string; sessionId: string; chatScope: string };

async function newSessionFor(options: { accountId: string; kind: TChannelKindName; userId: string }): Promise<string> {
  // Titled like a web chat (from the first message, then summarised); the session says where it came from.
  const session = await createSession({
    userId: options.userId,
    trigger: "channel",
    channel: { kind: options.kind === "qq" ? "QQ" : "FEISHU", accountId: options.accountId },
  });
  return session.id;
}

/** The conversation of this message's chat for this user, with a session (made on first use or after the old one was deleted). */
export async function conversationFor(options: { accountId: string; message: TInboundMessage; userId: string }): Promise<TConversation> {
  const { accountId, message, userId } = options;
  const chatScope = chatScopeOf(message);
  const now = new Date();
  const [row] = await rawQuery<{ id: string; sessionId: string | null }>(sql`
    INSERT INTO "channel_conversations" ("id", "accountId", "chatScope", "userId", "createdAt", "updatedAt")
    VALUES (${randomUUID()}::uuid, ${accountId}::uuid, ${chatScope}, ${userId}::uuid, ${now}::timestamp, ${now}::timestamp)
    ON CONFLICT ("accountId", "chatScope", "userId") DO UPDATE SET "updatedAt" = EXCLUDED."updatedAt"
    RETURNING "id", "sessionId"`);
  if (row!.sessionId) return { id: row!.id, sessionId: row!.sessionId, chatScope };
  const sessionId = await newSessionFor({ accountId, kind: message.kind, userId });
  const claimed = await db().channelConversation.updateMany({ where: { id: row!.id, sessionId: null }, data: { sessionId } });
  if (claimed.count) return { id: row!.id, sessionId, chatScope };
  // Another message of the same chat made one at the same moment: use theirs.
  await db().chatSession.deleteMany({ where: { id: sessionId, userId } });
  const current = await db().channelConversation.findUniqueOrThrow({ where: { id: row!.id } });
  return { id: current.id, sessionId: current.sessionId!, chatScope };
}

/** `/new`: later messages of this conversation go to a fresh session. */
export async function startNewConversationSession(options: { conversationId: string; accountId: string; message: TInboundMessage; userId: string }): Promise<{ sessionId: string }> {
  const sessionId = await newSessionFor({ accountId: options.accountId, kind: options.message.kind, userId: options.userId });
  await db().channelConversation.updateMany({ where: { id: options.conversationId, userId: options.userId }, data: { sessionId, awaitingApprovalId: null } });
  return { sessionId };
}

/**
 * The message a conversation's replies now go to: the newest one, whose window is the freshest.
 * The window starts when the platform says the message was sent (never later than now), with no
 * replies used. Unless `keepApprovalWait` (a command), a wait for an approval ends: the new
 * message answers the paused run itself (claim-for-input.ts denies the pending call).
 */
export async function openReplyWindow(options: { conversationId: string; message: TInboundMessage; keepApprovalWait?: boolean }): Promise<void> {
  const sent = Math.min(Date.parse(options.message.sentAt), Date.now());
  await db().channelConversation.update({
    where: { id: options.conversationId },
    data: {
      replyMessageId: options.message.messageId,
      replyReceivedAt: new Date(sent),
      repliesUsed: 0,
      webOrigin: options.message.webOrigin,
      ...(options.keepApprovalWait ? {} : { awaitingApprovalId: null }),
    },
  });
}

export async function awaitApproval(conversationId: string, approvalId: string): Promise<void> {
  await db().channelConversation.updateMany({ where: { id: conversationId }, data: { awaitingApprovalId: approvalId } });
}

/**
 * Takes up to `wanted` replies to the conversation's current message while its window is open, in
 * one statement (the reservation is the check): returns that message and the msg_seq numbers to
 * use, in order; none when the window has closed or the replies are used up. Replies go to the
 * newest message, so an answer that took long is sent to the window a newer message opened.
 */
export async function reserveReplies(options: { conversationId: string; wanted: number; windowMinutes: number; maxReplies: number; now?: Date }): Promise<{ messageId: string; sequences: number[] }> {
  const now = options.now ?? new Date();
  const opened = new Date(now.getTime() - options.windowMinutes * 60_000);
  const [row] = await rawQuery<{ messageId: string; before: number; after: number }>(sql`
    UPDATE "channel_conversations" c
    SET "repliesUsed" = LEAST(b."repliesUsed" + ${options.wanted}::int, ${options.maxReplies}::int), "updatedAt" = ${now}::timestamp
    FROM (SELECT "id", "repliesUsed" FROM "channel_conversations" WHERE "id" = ${options.conversationId}::uuid FOR UPDATE) b
    WHERE c."id" = b."id" AND c."replyMessageId" IS NOT NULL AND c."replyReceivedAt" > ${opened}::timestamp
      AND b."repliesUsed" < ${options.maxReplies}::int
    RETURNING c."replyMessageId" AS "messageId", b."repliesUsed" AS "before", c."repliesUsed" AS "after"`);
  if (!row) return { messageId: "", sequences: [] };
  return { messageId: row.messageId, sequences: Array.from({ length: row.after - row.before }, (_, index) => row.before + index + 1) };
}

/** The conversation a channel waits on for the rest of an answer (the hook and job of run ends). */
export async function waitingConversationOf(sessionId: string): Promise<{ id: string } | null> {
  return db().channelConversation.findFirst({ where: { sessionId, awaitingApprovalId: { not: null } }, select: { id: true } });
}

import { randomUUID } from "node:crypto";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { storableJsonText } from "@/lib/db/storable";
import { ZInboundMessage, type TInboundMessage } from "./inbound-message";

/**
 * Inbound messages, recorded once: the platform's id (QQ msg_id, Feishu event_id) is unique per
 * bot, so a delivery the platform repeats finds its row and runs nothing. Recording the event and
 * the account's "last event" is one statement, on the path the platform waits on for its ack.
 */
export async function recordInboundEvent(options: { accountId: string; externalId: string; message: TInboundMessage }): Promise<{ id: string } | undefined> {
  const now = new Date();
  const rows = await rawQuery<{ id: string }>(sql`
    WITH inserted AS (
      INSERT INTO "channel_events" ("id", "accountId", "externalId", "message", "receivedAt")
      VALUES (${randomUUID()}::uuid, ${options.accountId}::uuid, ${options.externalId}, ${storableJsonText(options.message)}::jsonb, ${now}::timestamp)
      ON CONFLICT ("accountId", "externalId") DO NOTHING
      RETURNING "id"
    ), touched AS (
      -- Runs whether or not the insert did (PostgreSQL runs every data-modifying WITH to completion).
      UPDATE "channel_accounts" SET "lastEventAt" = ${now}::timestamp WHERE "id" = ${options.accountId}::uuid
    )
    SELECT "id" FROM inserted`);
  return rows[0];
}

/** The platform will deliver it again after a failed ack: the row must not make that a duplicate. */
export async function forgetInboundEvent(id: string): Promise<void> {
  await db().channelEvent.deleteMany({ where: { id } });
}

export async function touchAccount(accountId: string): Promise<void> {
  await db().channelAccount.updateMany({ where: { id: accountId }, data: { lastEventAt: new Date() } });
}

/** A refused callback: counted on the account, nothing else stored. */
export async function countRejection(accountId: string): Promise<void> {
  await db().channelAccount.updateMany({ where: { id: accountId }, data: { rejectedCount: { increment: 1 }, lastRejectedAt: new Date() } });
}

/** The run an event started: its session and conversation, and the step its answer follows. */
export const ZStartedRun = z.object({ sessionId: z.uuid(), userId: z.uuid(), conversationId: z.uuid(), afterSeq: z.int() });
export type TStartedRun = z.infer<typeof ZStartedRun>;

/**
 * Takes the event for one job run, in the statement that reads it: no other job run handles it
 * (a delivery sent twice, a job started twice), while a later attempt of the same job run (after a
 * crash or a lost lease) takes it again and finds the run it had started, if it got that far.
 */
export async function takeInboundEvent(id: string, jobRunId: string): Promise<{ accountId: string; message: TInboundMessage; started?: TStartedRun } | undefined> {
  const rows = await rawQuery<{ accountId: string; message: unknown; started: unknown }>(sql`
    UPDATE "channel_events" SET "handledAt" = ${new Date()}::timestamp, "handledBy" = ${jobRunId}
    WHERE "id" = ${id}::uuid AND ("handledBy" IS NULL OR "handledBy" = ${jobRunId})
    RETURNING "accountId", "message", "started"`);
  const row = rows[0];
  if (!row) return undefined;
  const started = ZStartedRun.safeParse(row.started);
  return { accountId: row.accountId, message: ZInboundMessage.parse(row.message), started: started.success ? started.data : undefined };
}

/** Recorded as soon as the run has started: from here on, no attempt starts another. */
export async function recordStartedRun(id: string, started: TStartedRun): Promise<void> {
  await db().channelEvent.updateMany({ where: { id }, data: { started } });
}

/** A start refused for a passing reason: the next attempt, or the platform's next delivery, may try again. */
export async function giveBackInboundEvent(id: string): Promise<void> {
  await db().channelEvent.updateMany({ where: { id, started: { equals: Prisma.DbNull } }, data: { handledAt: null, handledBy: null } });
}

export async function pruneInboundEvents(before: Date): Promise<number> {
  return (await db().channelEvent.deleteMany({ where: { receivedAt: { lt: before } } })).count;
}

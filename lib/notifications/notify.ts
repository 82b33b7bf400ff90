import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { Notification, NotificationLevel } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { sendEvent } from "@/lib/jobs/send-event";
import { createLogger } from "@/lib/observability/logger";
import type { TNotificationLevel, TNotificationView } from "@/lib/wire/chronos";
import { ownChannelIds } from "./channels";

/**
 * Sending a notification: one row (the in-app bell shows it), and one delivery per other channel,
 * handed to the jobs layer (`notifications.deliver`, retried with backoff). Two guards run under a
 * per-user lock, so they hold across processes: a title already sent within `dedupeMinutes` is
 * not sent again, and beyond `maxPerHour` notifications per user everything is refused.
 */
const log = createLogger("notifications");

export const NOTIFICATION_LEVELS = ["info", "warning", "critical"] as const;
export const ZNotificationLevel = z.enum(NOTIFICATION_LEVELS, { error: "level must be info, warning or critical." });
export const DELIVER_EVENT = "notifications/deliver.requested";

export function levelName(level: NotificationLevel): TNotificationLevel {
  return level.toLowerCase() as TNotificationLevel;
}

export function toNotificationView(row: Notification): TNotificationView {
  return {
    id: row.id,
    level: levelName(row.level),
    title: row.title,
    message: row.message,
    source: row.source,
    sessionId: row.sessionId,
    readAt: row.readAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export type TNotifyInput = {
  userId: string;
  level: TNotificationLevel;
  title: string;
  message: string;
  source: string;
  /** Channel ids besides the in-app bell; ids that are not the user's (any more) are ignored. */
  channelIds: readonly string[];
  sessionId?: string | null;
  executionId?: string | null;
};

export type TNotifyResult =
  | { status: "sent"; notification: TNotificationView; deliveries: number }
  | { status: "deduplicated"; notification: TNotificationView }
  | { status: "capped"; maxPerHour: number };

export async function notify(input: TNotifyInput): Promise<TNotifyResult> {
  const { dedupeMinutes, maxPerHour } = getBehaviourConfig().chronos.notifications;
  const title = storableText(input.title).trim().slice(0, 200) || "Notification";
  const message = storableText(input.message).slice(0, 8_000);
  const channelIds = await ownChannelIds(input.userId, input.channelIds);
  const enabled = channelIds.length
    ? (await db().notificationChannel.findMany({ where: { userId: input.userId, id: { in: channelIds }, enabled: true }, select: { id: true } })).map((row) => row.id)
    : [];
  const now = new Date();
  const result = await db().$transaction(async (tx) => {
    // One notifier per user at a time: the dedupe and the cap below read, then write.
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${`xclaw-notify:${input.userId}`}, 0))`;
    if (dedupeMinutes > 0) {
      const same = await tx.notification.findFirst({
        where: { userId: input.userId, title, createdAt: { gte: new Date(now.getTime() - dedupeMinutes * 60_000) } },
        orderBy: { createdAt: "desc" },
      });
      if (same) return { status: "deduplicated" as const, notification: same };
    }
    const lastHour = await tx.notification.count({ where: { userId: input.userId, createdAt: { gte: new Date(now.getTime() - 3_600_000) } } });
    if (lastHour >= maxPerHour) return { status: "capped" as const };
    const notification = await tx.notification.create({
      data: {
        userId: input.userId,
        level: input.level.toUpperCase() as NotificationLevel,
        title,
        message,
        source: storableText(input.source).slice(0, 200),
        sessionId: input.sessionId ?? null,
        executionId: input.executionId ?? null,
        createdAt: now,
      },
    });
    const deliveries = [];
    for (const channelId of enabled) deliveries.push(await tx.notificationDelivery.create({ data: { notificationId: notification.id, channelId } }));
    return { status: "sent" as const, notification, deliveryIds: deliveries.map((delivery) => delivery.id) };
  });
  if (result.status === "capped") {
    log.warn("notification refused: hourly cap reached", { userId: input.userId, maxPerHour });
    return { status: "capped", maxPerHour };
  }
  if (result.status === "deduplicated") return { status: "deduplicated", notification: toNotificationView(result.notification) };
  if (result.deliveryIds.length) {
    try {
      await sendEvent(result.deliveryIds.map((deliveryId) => ({ name: DELIVER_EVENT, data: { deliveryId }, id: `notification-delivery:${deliveryId}` })));
    } catch (error) {
      // The bell has it; the deliveries stay PENDING and the channel says why.
      log.error("could not queue notification deliveries", { userId: input.userId, error });
      await db().notificationDelivery.updateMany({ where: { id: { in: result.deliveryIds } }, data: { status: "FAILED", lastError: "could not be queued" } });
    }
  }
  return { status: "sent", notification: toNotificationView(result.notification), deliveries: result.deliveryIds.length };
}

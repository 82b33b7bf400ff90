import { z } from "zod";
import { db } from "@/lib/db/client";
import type { TNotificationView } from "@/lib/wire/chronos";
import { toNotificationView } from "./notify";

/** The in-app bell: a user's notifications, newest first, and marking them read. */
export const ZMarkRead = z
  .strictObject({
    ids: z.array(z.uuid("ids must be notification ids.")).max(500, "At most 500 ids at once.").optional(),
    all: z.literal(true).optional(),
  })
  .refine((input) => (input.ids !== undefined) !== (input.all !== undefined), { message: "Send either ids or all: true." });

export const ZListNotificationsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(30),
  unread: z.enum(["true", "false"]).optional(),
});

export async function listNotifications(options: { userId: string; limit?: number; unreadOnly?: boolean }): Promise<{ notifications: TNotificationView[]; unread: number }> {
  const [rows, unread] = await Promise.all([
    db().notification.findMany({
      where: { userId: options.userId, ...(options.unreadOnly ? { readAt: null } : {}) },
      orderBy: { createdAt: "desc" },
      take: options.limit ?? 30,
    }),
    db().notification.count({ where: { userId: options.userId, readAt: null } }),
  ]);
  return { notifications: rows.map(toNotificationView), unread };
}

/** Marks the caller's notifications read; ids of other users' notifications change nothing. */
export async function markNotificationsRead(options: { userId: string; ids?: string[]; all?: boolean }): Promise<{ updated: number; unread: number }> {
  const { count } = await db().notification.updateMany({
    where: { userId: options.userId, readAt: null, ...(options.all ? {} : { id: { in: options.ids ?? [] } }) },
    data: { readAt: new Date() },
  });
  const unread = await db().notification.count({ where: { userId: options.userId, readAt: null } });
  return { updated: count, unread };
}

/** Housekeeping: notifications older than `before` (their deliveries go with them). */
export async function pruneNotifications(options: { before: Date }): Promise<number> {
  const { count } = await db().notification.deleteMany({ where: { createdAt: { lt: options.before } } });
  return count;
}

import { NonRetriableError } from "@/lib/jobs/job-errors";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { openChannel } from "./channels";
import { DELIVER_EVENT, levelName } from "./notify";
import { DeliveryError, sendToChannel } from "./senders";

/**
 * Delivers one notification to one channel. A failure is recorded on the delivery and on the
 * channel ("last error", shown in Settings) and then thrown: a retriable one is retried by the
 * jobs layer with exponential backoff, others (a refused address, a wrong secret) fail at once.
 * The delivery is final (FAILED) when the retries are used up. A crash right after a successful
 * send can send it once more: deliveries are at least once, and webhook receivers get a delivery
 * id (x-xclaw-delivery) to drop repeats.
 */
export async function deliverNotification(deliveryId: string, signal?: AbortSignal): Promise<{ status: "sent" | "skipped" }> {
  const delivery = await db().notificationDelivery.findUnique({ where: { id: deliveryId }, include: { notification: true, channel: true } });
  if (!delivery || delivery.status !== "PENDING") return { status: "skipped" };
  if (!delivery.channel.enabled) {
    await db().notificationDelivery.update({ where: { id: deliveryId }, data: { status: "FAILED", lastError: "the channel was switched off" } });
    return { status: "skipped" };
  }
  const { notification } = delivery;
  try {
    await sendToChannel(
      openChannel(delivery.channel),
      { id: notification.id, level: levelName(notification.level), title: notification.title, message: notification.message, source: notification.source, sessionId: notification.sessionId, createdAt: notification.createdAt },
      { delivery: delivery.id, signal },
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const now = new Date();
    await db().$transaction([
      db().notificationDelivery.update({ where: { id: deliveryId }, data: { attempts: { increment: 1 }, lastError: message.slice(0, 1_000) } }),
      db().notificationChannel.update({ where: { id: delivery.channelId }, data: { lastError: message.slice(0, 1_000), lastErrorAt: now } }),
    ]);
    if (error instanceof DeliveryError && !error.retriable) throw new NonRetriableError(message);
    throw error;
  }
  // One transaction: whoever sees the delivery SENT also sees the channel's last success.
  const now = new Date();
  await db().$transaction([
    db().notificationDelivery.update({ where: { id: deliveryId }, data: { status: "SENT", sentAt: now, attempts: { increment: 1 }, lastError: null } }),
    db().notificationChannel.update({ where: { id: delivery.channelId }, data: { lastSuccessAt: now } }),
  ]);
  return { status: "sent" };
}

export const deliverNotificationJob = defineJob(
  {
    id: "notifications.deliver",
    trigger: { event: DELIVER_EVENT },
    schema: z.object({ deliveryId: z.uuid() }),
    // About 1 + 2 + 4 + 8 s of backoff (jobs.retryBaseDelayMs), with jitter, before giving up.
    retries: 4,
    // Several deliveries to one slow receiver should not take every runner slot.
    concurrency: { limit: 5 },
  },
  async ({ event, step, signal }) => {
    try {
      return await step.run("send", () => deliverNotification(event.data.deliveryId, signal));
    } catch (error) {
      // Reached only when the retries are used up (or the failure was final).
      await step.run("give-up", () =>
        db().notificationDelivery.updateMany({ where: { id: event.data.deliveryId, status: "PENDING" }, data: { status: "FAILED" } }).then(() => ({ failed: true })),
      );
      throw error;
    }
  },
);


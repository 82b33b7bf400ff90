import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { assertNotRateLimited, recordFailure } from "@/lib/auth/rate-limit";
import { getChannelOrThrow, openChannel, toChannelView } from "./channels";
import { sendToChannel } from "./senders";
import type { TNotificationChannelView } from "@/lib/wire/chronos";

/**
 * "Send test": delivers a sample notification to one channel right away (not through the queue, so
 * the answer says whether it arrived) and records the outcome on the channel. Ten tests a minute
 * per user at most, so the button cannot be turned into a message cannon.
 */
const TEST_LIMIT = { maxFailures: 10, windowSeconds: 60 };

export async function sendTestNotification(options: { userId: string; channelId: string }): Promise<{ ok: boolean; error: string | null; channel: TNotificationChannelView }> {
  const channel = await getChannelOrThrow(options);
  const key = `notify-test:user:${options.userId}`;
  await assertNotRateLimited(key, TEST_LIMIT, "test notifications");
  await recordFailure(key, TEST_LIMIT);
  let error: string | null = null;
  try {
    await sendToChannel(
      openChannel(channel),
      {
        id: randomUUID(),
        level: "info",
        title: "Test notification",
        message: `This is a test from xclaw for the channel "${channel.name}". If you can read it, notifications will arrive here.`,
        source: "test",
        sessionId: null,
        createdAt: new Date(),
      },
      { delivery: `test-${randomUUID()}` },
    );
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const now = new Date();
  const updated = await db().notificationChannel.update({
    where: { id: channel.id },
    data: error ? { lastError: error.slice(0, 1_000), lastErrorAt: now } : { lastSuccessAt: now, lastError: null, lastErrorAt: null },
  });
  return { ok: !error, error, channel: toChannelView(updated) };
}

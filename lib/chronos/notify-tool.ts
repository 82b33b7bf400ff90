import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { notify, NOTIFICATION_LEVELS } from "@/lib/notifications/notify";
import { defineTool } from "@/lib/tools/registry";
import { enabledChannelIds } from "./jobs-store";

/**
 * notify: the run tells its owner something. The notification always reaches the in-app bell
 * (linked to this session), and the channels of the job or endpoint that started the run (in a
 * chat: all the owner's enabled channels). It is `external` risk: in a chat it asks first; a
 * chronos run's session always allows it (that is what the job is for), and an administrator can
 * still forbid it in xclaw.yaml (approvals.tools.notify: deny).
 */
const ZLevel = z.preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(NOTIFICATION_LEVELS));

/** Where a notification from this session goes, and what the bell names as its source. */
async function routeFor(userId: string, sessionId: string): Promise<{ channelIds: string[]; source: string; executionId: string | null }> {
  const execution = await db().chronosExecution.findFirst({
    where: { sessionId, userId },
    include: { job: { select: { name: true, channelIds: true } }, endpoint: { select: { name: true, channelIds: true } } },
  });
  if (execution?.job) return { channelIds: execution.job.channelIds, source: `job ${execution.job.name}`, executionId: execution.id };
  if (execution?.endpoint) return { channelIds: execution.endpoint.channelIds, source: `alert ${execution.endpoint.name}`, executionId: execution.id };
  return { channelIds: await enabledChannelIds(userId), source: "chat", executionId: execution?.id ?? null };
}

export const notifyTool = defineTool({
  name: "notify",
  description:
    "Notify the user (their in-app notifications and their notification channels such as Feishu). Use it when a person has to act: give a short specific title, the evidence and a suggested next step. In scheduled and alert runs, never call it when everything is in order.",
  input: z.object({
    title: z.string().trim().min(1).max(200).describe("Short and specific, e.g. 'Disk /var 93% full on db-1'"),
    message: z.string().trim().min(1).max(8_000).describe("What is wrong, the evidence, and what to do next"),
    level: ZLevel.default("warning").describe("info | warning | critical"),
  }),
  risk: "external",
  preview: async ({ title, level }) => ({ title: `Send a ${level} notification: ${title}`, detail: "It goes to your notification bell and your notification channels." }),
  async execute({ title, message, level }, context) {
    const route = await routeFor(context.userId, context.sessionId);
    const result = await notify({ userId: context.userId, level, title, message, source: route.source, channelIds: route.channelIds, sessionId: context.sessionId, executionId: route.executionId });
    if (result.status === "capped") {
      return { content: [{ type: "text", text: `Not sent: the hourly limit of ${result.maxPerHour} notifications is reached. Finish and mention the problem in your final answer instead.` }], isError: true };
    }
    if (route.executionId) await db().chronosExecution.update({ where: { id: route.executionId }, data: { notifications: { increment: 1 } } });
    if (result.status === "deduplicated") {
      const minutes = getBehaviourConfig().chronos.notifications.dedupeMinutes;
      return `Not sent again: a notification titled "${result.notification.title}" already went out within the last ${minutes} minutes. Nothing more to do.`;
    }
    const channels = result.deliveries ? ` and ${result.deliveries} channel${result.deliveries === 1 ? "" : "s"}` : "";
    return `Notified (${level}): "${result.notification.title}" — sent to the in-app notifications${channels}.`;
  },
});

import { getBehaviourConfig } from "@/lib/config/behaviour";
import { defineJob } from "@/lib/jobs/define-job";
import { answerText } from "./answer-text";
import { pruneBindingCodes } from "./binding-codes";
import { MESSAGE_EVENT, RUN_ENDED_EVENT, ZMessageEvent, ZRunEndedEvent } from "./channel-events";
import { continueAfterApproval } from "./continue-after-approval";
import { awaitApproval } from "./conversations";
import { deliverReplies, sessionLink } from "./deliver-replies";
import { pruneInboundEvents } from "./inbound-events";
import { readRunAnswer, waitForSessionRun, type TRunAnswer } from "@/lib/runs/run-answer";
import { startInbound } from "./start-inbound";

/**
 * The channels on the jobs layer. The callback only records the message and queues
 * `channels.message`, which handles it (start-inbound.ts), follows the run it started to its end
 * (lib/runs/follow-run.ts), and replies within the platform's window (deliver-replies.ts). Rate
 * limits and server errors of the platforms are retried here with the platform's delay.
 * `channels.continue` sends the rest of an answer after an approval decided on the web;
 * `channels.prune` forgets old inbound events and binding codes.
 */
export const channelMessageJob = defineJob(
  { id: "channels.message", trigger: { event: MESSAGE_EVENT }, schema: ZMessageEvent, retries: 5 },
  async ({ event, step, signal, runId }) => {
    const started = await step.run("start", () => startInbound(event.data.eventId, runId, signal));
    if (started.kind === "none") return { replies: 0 };
    if (started.kind === "reply") return { replies: (await deliverReplies(step, "reply", started.delivery, signal)).sent };
    const { sessionId, userId, conversationId, afterSeq, delivery } = started;
    const answer: TRunAnswer = await step.run("answer", async () => {
      await waitForSessionRun({ userId, sessionId, signal });
      return readRunAnswer({ userId, sessionId, afterSeq });
    });
    if (answer.status === "paused") await step.run("await-approval", () => awaitApproval(conversationId, answer.approval.id));
    const text = answerText(answer, sessionLink(delivery.webOrigin, sessionId));
    if (!text) return { replies: 0, status: answer.status };
    return { replies: (await deliverReplies(step, "answer", { ...delivery, text }, signal)).sent, status: answer.status };
  },
);

export const channelContinueJob = defineJob(
  { id: "channels.continue", trigger: { event: RUN_ENDED_EVENT }, schema: ZRunEndedEvent, retries: 5, concurrency: { key: "event.data.sessionId", limit: 1 } },
  async ({ event, step, signal }) => {
    const continued = await step.run("take", () => continueAfterApproval(event.data));
    if (!continued) return { replies: 0 };
    const { answer, conversationId, delivery } = continued;
    if (answer.status === "paused") await step.run("await-approval", () => awaitApproval(conversationId, answer.approval.id));
    const text = answerText(answer, sessionLink(delivery.webOrigin, event.data.sessionId));
    if (!text) return { replies: 0, status: answer.status };
    return { replies: (await deliverReplies(step, "rest", { ...delivery, text }, signal)).sent, status: answer.status };
  },
);

export const channelPruneJob = defineJob({ id: "channels.prune", trigger: { cron: "17 4 * * *" }, singleton: { mode: "skip" }, retries: 2 }, async ({ step }) =>
  step.run("prune", async () => {
    const now = Date.now();
    const events = await pruneInboundEvents(new Date(now - getBehaviourConfig().channels.keepEventDays * 86_400_000));
    const codes = await pruneBindingCodes(new Date(now - 86_400_000));
    return { events, codes };
  }),
);

export const channelJobs = [channelMessageJob, channelContinueJob, channelPruneJob];

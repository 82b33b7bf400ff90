import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { advanceExtractionCursor, applyMemoryOperations, extractFacts, planMemoryOperations, prepareExtraction } from "./extraction";
import { CONVERSATION_ACTIVE_EVENT } from "./extraction-trigger";

/**
 * memory.extract: started by every run of a web or channel session (recall's first model call),
 * one per session at a time; a newer run cancels the waiting one ("cancel" singleton), so the job
 * runs once the conversation has been quiet for memory.extraction.quietMinutes. A run still going
 * after the wait postpones it again (a few times at most).
 */
const ZConversationActive = z.object({ userId: z.uuid(), sessionId: z.uuid() });

async function sessionIsBusy(sessionId: string): Promise<boolean> {
  const session = await db().chatSession.findUnique({ where: { id: sessionId }, select: { status: true } });
  return session?.status === "RUNNING";
}

export const memoryExtractionJob = defineJob(
  {
    id: "memory.extract",
    trigger: { event: CONVERSATION_ACTIVE_EVENT },
    schema: ZConversationActive,
    singleton: { key: "event.data.sessionId", mode: "cancel" },
    concurrency: { key: "event.data.userId", limit: 1 },
    retries: 2,
  },
  async ({ event, step, signal }) => {
    const { userId, sessionId } = event.data;
    const quietMs = getBehaviourConfig().memory.extraction.quietMinutes * 60_000;
    // quietMinutes 0 (tests, or "extract right after every run"): no wait at all.
    if (quietMs > 0) await step.sleep("wait-for-quiet", quietMs);
    for (let attempt = 0; attempt < 5 && (await step.run(`busy-${attempt}`, () => sessionIsBusy(sessionId))); attempt++) {
      await step.sleep(`wait-again-${attempt}`, Math.max(quietMs, 1_000));
    }
    const prepared = await step.run("prepare", () => prepareExtraction({ userId, sessionId }));
    if (prepared.status === "skipped") return prepared;
    const facts = await step.run("extract-facts", () => extractFacts({ userText: prepared.userText, signal }));
    const plan = facts.length ? await step.run("plan", () => planMemoryOperations({ userId, facts, signal })) : { operations: [], existing: [] };
    const outcome = await step.run("apply", () => applyMemoryOperations({ userId, sessionId, plan }));
    await step.run("advance", () => advanceExtractionCursor({ userId, sessionId, throughSeq: prepared.throughSeq }));
    return { status: "done" as const, facts: facts.length, ...outcome };
  },
);

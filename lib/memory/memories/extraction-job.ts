import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { advanceExtractionCursor, applyMemoryOperations, extractFacts, planMemoryOperations, prepareExtraction } from "./extraction";
import { CONVERSATION_ACTIVE_EVENT } from "./extraction-trigger";

/**
 * memory.extract: scheduled when a run of a web or channel session ends (extraction-trigger.ts),
 * one per session at a time; a newer signal cancels the waiting one ("cancel" singleton). It runs
 * once the conversation has been quiet for memory.extraction.quietMinutes, counted from the
 * session's last activity (its updatedAt, which every run's claim and end move), so runs that sent
 * no signal of their own still postpone it. A conversation that never goes quiet is extracted
 * after a few postponements anyway.
 */
const ZConversationActive = z.object({ userId: z.uuid(), sessionId: z.uuid() });

const MAX_POSTPONEMENTS = 5;

/** When the session will have been quiet long enough, or null when it already has (or is gone). */
async function quietUntil(sessionId: string, quietMs: number): Promise<string | null> {
  const session = await db().chatSession.findUnique({ where: { id: sessionId }, select: { status: true, updatedAt: true } });
  if (!session) return null;
  const now = Date.now();
  // A run going now: look again a quiet period from now.
  const until = session.status === "RUNNING" ? now + Math.max(quietMs, 1_000) : session.updatedAt.getTime() + quietMs;
  return until > now ? new Date(until).toISOString() : null;
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
    // quietMinutes 0 (tests, or "extract right after every run"): no wait unless a run is going.
    for (let attempt = 0; attempt < MAX_POSTPONEMENTS; attempt++) {
      // Decided inside a step, so a replay of this function takes the same path.
      const until = await step.run(`quiet-until-${attempt}`, () => quietUntil(sessionId, quietMs));
      if (!until) break;
      await step.sleepUntil(`wait-for-quiet-${attempt}`, until);
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

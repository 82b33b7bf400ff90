import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { newSession, sendChat } from "../support/chat";
import { createUser } from "../support/http";
import { waitForRun, waitUntil } from "../support/jobs";
import { noteConversationActivity } from "@/lib/memory/memories/extraction-trigger";
import { setUpMemoryTestServices, writeMemoryTestConfig } from "../support/memory";

/**
 * Extraction waits for a quiet conversation, counted from its last activity: a run that ends while
 * the job is waiting sends no second signal (one per quiet period per process), yet still postpones
 * the extraction, which then sees both messages.
 */
const QUIET_MS = 3_000;
writeMemoryTestConfig({ "memory.extraction.quietMinutes": QUIET_MS / 60_000 });

const services = setUpMemoryTestServices({ jobs: true });

const FIRST = "I moved from Paris to Berlin last month and I now work as a backend engineer at a logistics startup.";
const SECOND = "I also stopped drinking coffee entirely, and I prefer short answers because I read them on my phone.";

describe("memory extraction after a quiet period", () => {
  it("is postponed by a later run that sent no signal of its own, and then reads both messages", async () => {
    const { cookie } = await createUser();
    const session = await newSession(cookie);
    let extractedAt = 0;
    let extractedText = "";
    services.fake.script((request) => {
      const system = request.body.messages[0].content as string;
      if (system.startsWith("You extract durable facts")) {
        extractedAt = Date.now();
        extractedText = request.body.messages[1].content as string;
        return { text: '{"facts": []}' };
      }
      return { text: "Noted." };
    });
    await sendChat(cookie, session, FIRST);
    const signalled = () => db().jobRun.count({ where: { jobId: "memory.extract", data: { path: ["sessionId"], equals: session } } });
    await waitUntil(async () => (await signalled()) === 1, "the extraction job for the first message");

    await new Promise((resolve) => setTimeout(resolve, QUIET_MS / 2));
    await sendChat(cookie, session, SECOND);
    const secondEndedAt = Date.now();
    // No second job: the waiting one sees the newer activity itself.
    expect(await signalled()).toBe(1);

    const job = await db().jobRun.findFirstOrThrow({ where: { jobId: "memory.extract", data: { path: ["sessionId"], equals: session } } });
    const finished = await waitForRun(job.id, ["COMPLETED", "FAILED"]);
    expect(finished.status).toBe("COMPLETED");
    expect(extractedText).toContain(FIRST);
    expect(extractedText).toContain(SECOND);
    // Quiet is counted from the second run (an ordering bound: a slow machine only makes it later).
    expect(extractedAt).toBeGreaterThanOrEqual(secondEndedAt + QUIET_MS - 500);
    expect(await signalled()).toBe(1);
  });

  it("sends the signals of runs that end together as one batch: one job per session, created in one transaction", async () => {
    const { cookie, user } = await createUser();
    const userId = user.id;
    const sessions = [await newSession(cookie), await newSession(cookie), await newSession(cookie)];
    const before = Date.now();
    await Promise.all(sessions.map((sessionId) => noteConversationActivity({ userId, sessionId }, QUIET_MS)));
    // Signalled again within the quiet period: nothing more is sent.
    await noteConversationActivity({ userId, sessionId: sessions[0]! }, QUIET_MS);
    const jobs = await db().jobRun.findMany({ where: { jobId: "memory.extract", data: { path: ["userId"], equals: userId } } });
    expect(jobs.map((job) => (job.data as { sessionId: string }).sessionId).sort()).toEqual([...sessions].sort());
    // One statement's clock: the rows were written together.
    expect(new Set(jobs.map((job) => job.createdAt.getTime())).size).toBe(1);
    for (const job of jobs) expect(job.runAt.getTime()).toBeGreaterThanOrEqual(before + QUIET_MS - 1_000);
  });
});

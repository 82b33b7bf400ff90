import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import type { JobRun } from "@/lib/db/generated/client";
import { saveMemory } from "@/lib/memory/memories/memory-store";
import { setMemorySettings } from "@/lib/memory/memories/memory-settings";
import type { TFakeLlm, TRecordedRequest } from "../fake-llm/server";
import { newSession, sendChat } from "../support/chat";
import { createUser } from "../support/http";
import { waitForRun, waitUntil } from "../support/jobs";
import { setUpMemoryTestServices, writeMemoryTestConfig } from "../support/memory";

/**
 * Extraction with a scripted model: a quiet conversation's user messages become memories the mem0
 * way (add / update / delete / nothing; an id the model was not given is ignored), within the caps
 * (under 200 characters: nothing sent; a daily limit; a 4xx is not retried; the user's switch).
 */
writeMemoryTestConfig({ "memory.extraction.dailyLimit": 2 });

const services = setUpMemoryTestServices({ jobs: true });

const LONG_MESSAGE =
  "I moved from Paris to Berlin last month and I now work as a backend engineer at a logistics startup. I no longer drink coffee at all. Please keep answers short, I read them on my phone during the commute.";

/** The extraction run of a session, once finished. */
async function extractionOf(sessionId: string): Promise<JobRun> {
  let run: JobRun | null = null;
  await waitUntil(async () => {
    run = await db().jobRun.findFirst({ where: { jobId: "memory.extract", status: { in: ["COMPLETED", "FAILED"] }, data: { path: ["sessionId"], equals: sessionId } }, orderBy: { createdAt: "desc" } });
    return Boolean(run);
  }, "the extraction run");
  return waitForRun(run!.id, ["COMPLETED", "FAILED"]);
}

function chatCalls(fake: TFakeLlm): TRecordedRequest[] {
  return fake.requests.filter((request) => request.api === "openai");
}

describe("memory extraction", () => {
  it("adds, updates and deletes memories from the user's messages, and ignores an id it never gave out", async () => {
    const { cookie, user } = await createUser();
    const paris = await saveMemory({ userId: user.id, content: "The user lives in Paris.", origin: "USER" });
    const coffee = await saveMemory({ userId: user.id, content: "The user drinks coffee every morning.", origin: "USER" });
    const session = await newSession(cookie);
    let existing: { id: string; text: string }[] = [];
    services.fake.script((request) => {
      const system = request.body.messages[0].content as string;
      if (system.startsWith("You extract durable facts")) {
        return { text: '```json\n{"facts": ["The user lives in Berlin now.", "The user does not drink coffee any more.", "The user works as a backend engineer at a logistics startup.", "short"]}\n```' };
      }
      if (system.startsWith("You keep a user's long-term memory")) {
        existing = JSON.parse(request.body.messages[1].content).existing_memories;
        const ref = (text: string) => existing.find((memory) => memory.text === text)!.id;
        return {
          text: JSON.stringify({
            memory: [
              { event: "UPDATE", id: ref("The user lives in Paris."), text: "The user lives in Berlin (moved from Paris)." },
              { event: "DELETE", id: ref("The user drinks coffee every morning.") },
              { event: "ADD", text: "The user works as a backend engineer at a logistics startup." },
              { event: "DELETE", id: "99" },
              { event: "NONE", id: ref("The user lives in Paris.") },
            ],
          }),
        };
      }
      return { text: "Got it." };
    });
    await sendChat(cookie, session, LONG_MESSAGE);
    const run = await extractionOf(session);
    expect(run.error).toBeNull();
    const output = run.output as Record<string, unknown>;
    expect(output).toMatchObject({ status: "done", facts: 3, added: [expect.any(String)], updated: [paris.memory.id], deleted: [coffee.memory.id], unchanged: 1 });
    expect((output.ignored as { reason: string }[]).map((item) => item.reason)).toEqual(['"99" is not one of the ids the model was given']);

    // Only the user's messages were sent, inside a data block.
    const factsCall = chatCalls(services.fake).find((request) => (request.body.messages[0].content as string).startsWith("You extract durable facts"))!;
    expect(factsCall.body.messages[1].content).toBe(`<user_messages>\n${LONG_MESSAGE}\n</user_messages>`);
    expect(factsCall.body.messages[1].content).not.toContain("Got it.");
    // The model saw existing memories under small numbers, never their ids.
    expect(existing.map((memory) => memory.id).every((id) => /^\d+$/.test(id))).toBe(true);

    const memories = await db().memory.findMany({ where: { userId: user.id }, orderBy: { createdAt: "asc" } });
    expect(memories.map((memory) => [memory.content, memory.origin])).toEqual([
      ["The user lives in Berlin (moved from Paris).", "USER"],
      ["The user works as a backend engineer at a logistics startup.", "EXTRACTION"],
    ]);
    expect(memories[1]!.sessionId).toBe(session);
  });

  it("sends nothing for a short conversation, stops at the daily limit, respects the user's switch and does not retry a 4xx", async () => {
    const { cookie, user } = await createUser();
    services.fake.script((request) => ((request.body.messages[0].content as string).startsWith("You extract") ? { text: '{"facts": []}' } : { text: "ok" }));
    const short = await newSession(cookie);
    await sendChat(cookie, short, "hi there");
    expect(((await extractionOf(short)).output as { reason: string }).reason).toMatch(/only 8 characters of new user text/);

    // Two extractions a day (this file's dailyLimit): the third is skipped without a model call.
    for (let index = 0; index < 3; index++) {
      const session = await newSession(cookie);
      await sendChat(cookie, session, `${LONG_MESSAGE} (${index})`);
      const run = await extractionOf(session);
      if (index < 2) expect((run.output as { status: string }).status).toBe("done");
      else expect((run.output as { reason: string }).reason).toMatch(/daily limit of 2 extractions/);
    }
    expect(chatCalls(services.fake).filter((request) => (request.body.messages[0].content as string).startsWith("You extract"))).toHaveLength(2);

    const other = await createUser();
    await setMemorySettings(other.user.id, { autoExtract: false });
    const off = await newSession(other.cookie);
    await sendChat(other.cookie, off, LONG_MESSAGE);
    // Turned off: no extraction is even scheduled.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await db().jobRun.count({ where: { jobId: "memory.extract", data: { path: ["sessionId"], equals: off } } })).toBe(0);

    const third = await createUser();
    services.fake.reset();
    services.fake.script((request) =>
      (request.body.messages[0].content as string).startsWith("You extract") ? { status: 400, errorMessage: "This request is too large for the model." } : { text: "ok" },
    );
    const refused = await newSession(third.cookie);
    await sendChat(third.cookie, refused, LONG_MESSAGE);
    const failed = await extractionOf(refused);
    expect(failed.status).toBe("FAILED");
    expect(failed.attempt).toBe(0);
    expect(failed.error).toMatch(/HTTP 400/);
    expect(chatCalls(services.fake).filter((request) => (request.body.messages[0].content as string).startsWith("You extract"))).toHaveLength(1);
    expect(await db().memory.count({ where: { userId: { in: [user.id, third.user.id] } } })).toBe(0);
  });
});

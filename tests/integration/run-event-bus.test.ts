import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseUrl, db } from "@/lib/db/client";
import { runEventBus } from "@/lib/runs/event-bus";
import { PostgresRunEventBus } from "@/lib/runs/postgres-run-event-bus";
import type { TRunEvent } from "@/lib/runs/run-types";
import { startRun } from "@/lib/runs/start-run";
import { waitForRun } from "@/lib/runs/local-runs";
import { createSession } from "@/lib/sessions/sessions";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";

/**
 * The PostgreSQL run event bus, with a second bus instance standing in for another process (the
 * two-process e2e spec does the same with two real app processes). On the embedded database the
 * bus is the in-memory one; these tests are for PostgreSQL.
 */
const onPostgres = process.env.XCLAW_TEST_DATABASE === "postgres";

let fake: TFakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

describe.runIf(onPostgres)("PostgreSQL run event bus", () => {
  it("is the bus chosen for a PostgreSQL server", () => {
    expect(runEventBus().kind).toBe("postgres");
  });

  it("lets another process follow a run from its first event and see its end; copies nothing while nobody follows", async () => {
    const { user } = await createUser();
    const quiet = await createSession({ userId: user.id });
    fake.script([{ text: "nobody is watching" }]);
    await startRun({ session: { id: quiet.id, userId: user.id }, input: { kind: "message", text: "hi" } });
    await waitForRun(quiet.id);
    expect(await db().runEventBatch.count({ where: { sessionId: quiet.id } })).toBe(0);

    const session = await createSession({ userId: user.id });
    fake.script([{ text: "one two three four five six", chunks: 6, chunkDelayMs: 150 }]);
    const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "count" } });
    const other = new PostgresRunEventBus(databaseUrl());
    try {
      const events: TRunEvent[] = [];
      for await (const event of other.followRemote({ runId: run.runId, sessionId: session.id, isAlive: async () => true })!) events.push(event);
      expect(events[0]).toMatchObject({ type: "run-start", runId: run.runId });
      expect(events.filter((event) => event.type === "text-delta").map((event) => (event.type === "text-delta" ? event.text : "")).join("")).toBe("one two three four five six");
      expect(events.at(-1)).toMatchObject({ type: "run-end", outcome: { status: "completed" } });
      expect(await db().runEventBatch.count({ where: { runId: run.runId } })).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it("stops a run from another process", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ hang: true }]);
    const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "wait" } });
    const other = new PostgresRunEventBus(databaseUrl());
    try {
      // Wait until the owner listens, as a real second process would find it already running.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.requestStop(run.runId);
      const outcome = await waitForRun(session.id);
      expect(outcome).toEqual({ status: "stopped", reason: "user" });
      expect(await db().chatSession.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({ status: "FAILED", statusReason: "stopped by the user" });
    } finally {
      await other.close();
    }
  });

  it("stops a run through the session's stop flag even without a notification", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ hang: true }]);
    await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "wait" } });
    await db().chatSession.update({ where: { id: session.id }, data: { stopRequestedAt: new Date() } });
    // The heartbeat (every runs.heartbeatSeconds) reads the flag.
    const outcome = await waitForRun(session.id);
    expect(outcome).toEqual({ status: "stopped", reason: "user" });
  }, 20_000);
});

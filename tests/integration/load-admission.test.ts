import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { dbPool, db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { metrics } from "@/lib/telemetry/metrics";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { chatResponse, clearProviderEnvironment, newSession, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";
import { readUiStream } from "../support/ui-stream";

/**
 * Under load a run either starts and finishes, or is refused before any step is written: a pool
 * of two connections (one on the embedded database) serves twenty runs at once, and runs beyond
 * the per-user and per-process limits get 429 / 503 with Retry-After.
 */
process.env.DATABASE_POOL_MAX = "2";
resetEnvironment();
const configDirectory = mkdtempSync(path.join(os.tmpdir(), "xclaw-load-"));
const config = parseDocument(readFileSync(path.join(process.cwd(), "xclaw.yaml"), "utf8"));
config.setIn(["runs", "maxConcurrentPerUser"], 10);
config.setIn(["runs", "maxConcurrent"], 25);
config.setIn(["browser", "worker"], "off");
writeFileSync(path.join(configDirectory, "xclaw.yaml"), String(config));
process.env.XCLAW_CONFIG = path.join(configDirectory, "xclaw.yaml");
resetEnvironment();

let fake: TFakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
  delete process.env.DATABASE_POOL_MAX;
  delete process.env.XCLAW_CONFIG;
  resetEnvironment();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

/** Runs refused for this reason so far in this process (the admission-refusals metric). */
async function refusals(reason: string): Promise<number> {
  return (await metrics().admissionRefusals.get()).values.find((sample) => sample.labels.reason === reason)?.value ?? 0;
}

describe("admission and backpressure", () => {
  it("finishes twenty runs at once on a pool of two connections, none of them crashing", async () => {
    expect(dbPool().options.max).toBe(process.env.XCLAW_TEST_DATABASE === "postgres" ? 2 : 1);
    fake.script(() => ({ text: "done after a while", delayMs: 200, chunks: 3 }));
    const users = [await createUser(), await createUser()];
    const sessions = await Promise.all(Array.from({ length: 20 }, (_, index) => newSession(users[index % 2]!.cookie).then((id) => ({ id, cookie: users[index % 2]!.cookie }))));
    const responses = await Promise.all(sessions.map((session) => chatResponse(session.cookie, session.id, "go")));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    // Exhaust the pool on purpose while the runs are mid-flight, for longer than pg's old 5 s
    // connection timeout: their step writes must wait for a connection, not fail.
    const pool = dbPool();
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    for (const client of held) client.release();
    const texts = await Promise.all(responses.map(async (response) => (await readUiStream(response)).text));
    expect(texts).toEqual(Array(20).fill("done after a while"));
    await Promise.all(sessions.map((session) => waitForRun(session.id)));
    const states = await db().chatSession.findMany({ where: { id: { in: sessions.map((session) => session.id) } } });
    expect(states.map((state) => state.status)).toEqual(Array(20).fill("SUCCESS"));
    expect(await db().step.count({ where: { sessionId: { in: sessions.map((session) => session.id) }, status: { not: "COMPLETED" } } })).toBe(0);
  });

  it("refuses a user's eleventh run at once with 429 and Retry-After, writing nothing", async () => {
    fake.script(() => ({ text: "slow", delayMs: 1_500 }));
    const { cookie } = await createUser();
    const refusedBefore = await refusals("user_limit");
    const sessions = await Promise.all(Array.from({ length: 11 }, () => newSession(cookie)));
    const first = await Promise.all(sessions.slice(0, 10).map((id) => chatResponse(cookie, id, "go")));
    expect(first.map((response) => response.status)).toEqual(Array(10).fill(200));
    const refused = await chatResponse(cookie, sessions[10]!, "one more");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error.message).toMatch(/You have 10 runs going at once/);
    expect(await refusals("user_limit")).toBe(refusedBefore + 1);
    expect(await db().step.count({ where: { sessionId: sessions[10]! } })).toBe(0);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessions[10]! } })).status).toBe("INIT");
    await Promise.all(first.map((response) => response.text()));
    await Promise.all(sessions.map((id) => waitForRun(id)));
    // Once the others have finished, the same message goes through.
    fake.script(() => ({ text: "now it runs" }));
    expect((await readUiStream(await chatResponse(cookie, sessions[10]!, "one more"))).text).toBe("now it runs");
  });

  it("refuses runs beyond the process's limit with 503 and Retry-After", async () => {
    fake.script(() => ({ text: "slow", delayMs: 1_500 }));
    const users = await Promise.all(Array.from({ length: 3 }, () => createUser()));
    const refusedBefore = await refusals("process_limit");
    const sessions = await Promise.all(Array.from({ length: 26 }, (_, index) => newSession(users[index % 3]!.cookie).then((id) => ({ id, cookie: users[index % 3]!.cookie }))));
    const started = await Promise.all(sessions.slice(0, 25).map((session) => chatResponse(session.cookie, session.id, "go")));
    expect(started.every((response) => response.status === 200)).toBe(true);
    const refused = await chatResponse(sessions[25]!.cookie, sessions[25]!.id, "go");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refusals("process_limit")).toBe(refusedBefore + 1);
    expect(await db().step.count({ where: { sessionId: sessions[25]!.id } })).toBe(0);
    await Promise.all(started.map((response) => response.text()));
    await Promise.all(sessions.map((session) => waitForRun(session.id)));
  });
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { createSession } from "@/lib/sessions/sessions";
import { startRun } from "@/lib/runs/start-run";
import { waitForRun } from "@/lib/runs/local-runs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";

/**
 * Next.js loads instrumentation (which runs the job runner, and with it multi-agent workers) and
 * the route handlers as separate module graphs in one process. Runs started from either share the
 * process's run registry, so both graphs' heartbeats must renew them: a run started in one graph
 * must not be stopped by the other graph's heartbeat (it was, as "stopped by the user", before the
 * process had one runner id).
 */
let fake: TFakeLlm;
let directory: string;
const saved = process.env.XCLAW_CONFIG;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-graphs-"));
  await writeFile(path.join(directory, "xclaw.yaml"), "runs: { leaseSeconds: 2, heartbeatSeconds: 0.2 }\n");
  process.env.XCLAW_CONFIG = path.join(directory, "xclaw.yaml");
  resetEnvironment();
  fake = await startFakeLlm();
  useFakeProvider(fake);
});
afterAll(async () => {
  await fake?.close();
  clearProviderEnvironment();
  if (saved === undefined) delete process.env.XCLAW_CONFIG;
  else process.env.XCLAW_CONFIG = saved;
  resetEnvironment();
  await rm(directory, { recursive: true, force: true });
});

it("a run started in one module graph outlives the heartbeats of another", async () => {
  const { user } = await createUser();
  // Slow replies: both runs are alive across several heartbeats of both graphs.
  fake.script(() => ({ text: "finished normally", delayMs: 1_500 }));
  const first = await createSession({ userId: user.id });
  await startRun({ session: { id: first.id, userId: user.id }, input: { kind: "message", text: "one" } });

  // A second copy of the run core, as Next.js has for instrumentation: its own module state.
  vi.resetModules();
  const other = { ...(await import("@/lib/runs/start-run")), ...(await import("@/lib/runs/local-runs")) };
  const sessions = await import("@/lib/sessions/sessions");
  const second = await sessions.createSession({ userId: user.id });
  await other.startRun({ session: { id: second.id, userId: user.id }, input: { kind: "message", text: "two" } });

  const [one, two] = await Promise.all([waitForRun(first.id), other.waitForRun(second.id)]);
  expect(one).toEqual({ status: "completed", text: "finished normally" });
  expect(two).toEqual({ status: "completed", text: "finished normally" });
});

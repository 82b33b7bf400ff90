import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import type { ChronosExecution, ChronosExecutionStatus } from "@/lib/db/generated/client";
import { jobCatalog } from "@/lib/app/job-catalog";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startTestRunner } from "./jobs";

/**
 * Chronos test helpers. `writeChronosConfig` must run at the top of a test file, before anything reads
 * xclaw.yaml: it writes a copy with the given settings and points XCLAW_CONFIG at it (each test
 * file runs in its own module graph, so the copy is that file's alone).
 */
export function writeChronosConfig(settings: Record<string, unknown>): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), "xclaw-chronos-config-"));
  const config = parseDocument(readFileSync(path.join(process.cwd(), "xclaw.yaml"), "utf8"));
  config.setIn(["browser", "worker"], "off");
  for (const [key, value] of Object.entries(settings)) config.setIn(key.split("."), value);
  const file = path.join(directory, "xclaw.yaml");
  writeFileSync(file, String(config));
  process.env.XCLAW_CONFIG = file;
  process.env.XCLAW_DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "xclaw-chronos-data-"));
  resetEnvironment();
  return file;
}

/** An embedded runner with the app's real jobs (executions, deliveries); no cron (tests tick by hand). */
export function startChronosRunner(): Promise<TJobRunner> {
  return startTestRunner({ jobs: jobCatalog, cron: false });
}

/** Polls until the execution reaches one of `statuses` (a deadline, not a timing assertion). */
export async function waitForExecution(executionId: string, statuses: ChronosExecutionStatus[] = ["SILENT", "NOTIFIED", "SKIPPED", "FAILED", "TIMEOUT"], timeoutMs = 30_000): Promise<ChronosExecution> {
  const deadline = Date.now() + timeoutMs;
  let execution: ChronosExecution | null = null;
  while (Date.now() < deadline) {
    execution = await db().chronosExecution.findUnique({ where: { id: executionId } });
    if (execution && statuses.includes(execution.status)) return execution;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`execution ${executionId} did not reach ${statuses.join("|")} within ${timeoutMs} ms; it is ${execution?.status} (${execution?.statusReason ?? "no reason"})`);
}

export type TReceivedRequest = { path: string; headers: Record<string, string>; body: string; json: unknown };
export type TReceiver = {
  port: number;
  url: (path?: string) => string;
  requests: TReceivedRequest[];
  /** Answers to give, in order; when empty, 200 `{"code":0,"msg":"success"}` (Feishu's success). */
  respond: (answers: { status: number; body?: unknown }[]) => void;
  reset: () => void;
  close: () => Promise<void>;
};

/** A local HTTP server that plays a notification receiver (a Feishu bot, a webhook) and records what it got. */
export async function startReceiver(): Promise<TReceiver> {
  const { createServer } = await import("node:http");
  const requests: TReceivedRequest[] = [];
  let answers: { status: number; body?: unknown }[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    requests.push({ path: request.url ?? "", headers: Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)])), body, json });
    const answer = answers.shift() ?? { status: 200, body: { code: 0, msg: "success" } };
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    requests,
    respond: (next) => {
      answers = [...next];
    },
    reset: () => {
      requests.length = 0;
      answers = [];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * C chats at once against a model that waits 4 s before its first token, on a production build:
 * how many finish, are refused (429/503 with Retry-After) or fail, the time to first token minus
 * the model's own 4 s (p50/p99), and the memory each open stream costs (RSS of the app's whole
 * process tree at its peak minus idle, divided by C). Users: 100, the chats spread evenly.
 * Targets at C = 1,000 on PostgreSQL: 0 failed, 0 refused, TTFT p50 ≤ 6 s, ≤ 100 KB per stream.
 *
 *   npm run build && npx tsx bench/concurrency.ts [C …]          (default 100 200 1000)
 *   BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/concurrency.ts
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { benchConfig, benchDatabase, createApiToken, descendants, percentile, startApp, startFakeLlmProcess } from "./support";

const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const levels = sizes.length ? sizes : [100, 200, 1000];
const USERS = 100;
const MODEL_WAIT_MS = 4_000;

// The client side must not be the bottleneck: one connection per chat, no pool limit.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function treeRssKb(pid: number): number {
  let total = 0;
  for (const id of descendants(pid)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${id}/status`, "utf8"));
      total += Number(match?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return total;
}

/** Asks the app's Next.js server for a heap snapshot (it must run with --heapsnapshot-signal=SIGUSR2). */
function snapshotServer(pid: number): void {
  const server = descendants(pid).find((id) => {
    try {
      const command = readFileSync(`/proc/${id}/cmdline`, "utf8");
      // next start names its process "next-server (vX)", which replaces its command line.
      return command.includes("next/dist/bin/next") || command.startsWith("next-server");
    } catch {
      return false;
    }
  });
  if (server) process.kill(server, "SIGUSR2");
}

type TOutcome = { status: "finished" | "refused" | "failed"; ttftMs?: number; detail?: string };

/** One chat over plain HTTP (no client-side pool limits): status, time to the first text delta. */
function chat(url: string, token: string, sessionId: string): Promise<TOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const body = JSON.stringify({ sessionId, text: "hello" });
    const request = http.request(`${url}/api/chat`, { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (response) => {
      let buffer = "";
      let ttftMs: number | undefined;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffer += chunk;
        if (ttftMs === undefined && buffer.includes('"type":"text-delta"')) ttftMs = performance.now() - started;
      });
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        if (status === 429 || status === 503) resolve({ status: response.headers["retry-after"] ? "refused" : "failed", detail: `${status}: ${buffer.slice(0, 200)}` });
        else if (status !== 200) resolve({ status: "failed", detail: `${status}: ${buffer.slice(0, 200)}` });
        else if (buffer.includes('"type":"error"') || ttftMs === undefined) resolve({ status: "failed", detail: buffer.slice(Math.max(0, buffer.indexOf('"type":"error"')), buffer.indexOf('"type":"error"') + 200) });
        else resolve({ status: "finished", ttftMs });
      });
      response.on("error", (error) => resolve({ status: "failed", detail: String(error) }));
    });
    request.on("error", (error) => resolve({ status: "failed", detail: String(error) }));
    request.end(body);
  });
}

const fake = await startFakeLlmProcess();
async function scriptModel(count: number) {
  const reply = { text: "Here is a short answer to your question.", chunks: 4, delayMs: MODEL_WAIT_MS };
  await fetch(`${fake.url}/_control/reset`, { method: "POST" });
  await fetch(`${fake.url}/_control/script`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ replies: Array.from({ length: count }, () => reply) }) });
}
async function modelRequestTimes(): Promise<number[]> {
  const { requests } = (await (await fetch(`${fake.url}/_control/requests`)).json()) as { requests: { receivedAt: number }[] };
  return requests.map((request) => request.receivedAt);
}
const { name: database, env: databaseEnv, drop } = await benchDatabase();
// A hundred accounts from one address: the sign-up limit is for people, not for this benchmark.
// BENCH_NO_MEMORY=1: memory recall and the extraction signal off, to see what they cost.
const config = await benchConfig([
  [["auth", "registrationRateLimit", "perIp", "maxAttempts"], 10_000],
  ...(process.env.BENCH_NO_MEMORY === "1"
    ? ([
        [["memory", "recall", "memories"], 0],
        [["memory", "recall", "chunks"], 0],
        [["memory", "extraction", "enabled"], false],
      ] as [string[], unknown][])
    : []),
]);
const app = await startApp({ ...databaseEnv, XCLAW_CONFIG: config, OPENAI_BASE_URL: fake.openaiBaseUrl, OPENAI_API_KEY: "bench", XCLAW_PROVIDERS: "openai" });
try {
  const tokens: string[] = [];
  for (let index = 0; index < USERS; index++) tokens.push(await createApiToken(app.url, `load-${index}-${Date.now()}@example.com`));
  console.log(`concurrency: ${database}, ${USERS} users, model waits ${MODEL_WAIT_MS} ms before its first token`);
  for (const level of levels) {
    const sessions: { token: string; id: string }[] = [];
    for (let index = 0; index < level; index++) {
      const token = tokens[index % USERS]!;
      const created = await fetch(`${app.url}/api/sessions`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
      sessions.push({ token, id: ((await created.json()) as { session: { id: string } }).session.id });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleKb = treeRssKb(app.pid);
    let peakKb = idleKb;
    const sampler = setInterval(() => (peakKb = Math.max(peakKb, treeRssKb(app.pid))), 100);
    if (process.env.BENCH_HEAP_SNAPSHOT === "idle") {
      snapshotServer(app.pid);
      await new Promise((resolve) => setTimeout(resolve, 60_000));
    }
    await scriptModel(level);
    const burstStarted = Date.now();
    const pending = Promise.all(sessions.map((session) => chat(app.url, session.token, session.id)));
    // BENCH_HEAP_SNAPSHOT=1 (with XCLAW_NEXT_NODE_ARGS=--heapsnapshot-signal=SIGUSR2): a heap
    // snapshot of the server while streams are open and waiting for the model, once half the chats
    // wait on it (on a slow machine the first have answered by then); =idle: one just before the burst.
    if (process.env.BENCH_HEAP_SNAPSHOT === "1") {
      while ((await modelRequestTimes()).length < level / 2) await new Promise((resolve) => setTimeout(resolve, 100));
      snapshotServer(app.pid);
    }
    const outcomes = await pending;
    clearInterval(sampler);
    // When each run's model call reached the model: the platform's share of the wait, without the client's.
    const reached = (await modelRequestTimes()).map((receivedAt) => receivedAt - burstStarted);
    const finished = outcomes.filter((outcome) => outcome.status === "finished");
    const added = finished.map((outcome) => outcome.ttftMs! - MODEL_WAIT_MS);
    const failures = outcomes.filter((outcome) => outcome.status === "failed");
    console.log(
      `  C=${level}: finished ${finished.length}, refused ${outcomes.filter((outcome) => outcome.status === "refused").length}, failed ${failures.length}` +
        (added.length ? ` | TTFT p50 ${(percentile(added, 50) + MODEL_WAIT_MS).toFixed(0)} ms (model 4000 + ${percentile(added, 50).toFixed(0)}), p99 ${(percentile(added, 99) + MODEL_WAIT_MS).toFixed(0)} ms` : "") +
        ` | RSS idle ${(idleKb / 1024).toFixed(0)} MB, peak ${(peakKb / 1024).toFixed(0)} MB, ${((peakKb - idleKb) / level).toFixed(0)} KB per open stream`,
    );
    if (reached.length) console.log(`    model calls reached the model after p50 ${percentile(reached, 50)} ms, p99 ${percentile(reached, 99)} ms, last ${Math.max(...reached)} ms`);
    if (failures.length) console.log(`    first failure: ${failures[0]!.detail}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
} finally {
  await app.stop();
  await fake.stop();
  await drop();
}

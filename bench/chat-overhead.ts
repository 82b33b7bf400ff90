/**
 * Time to first token through POST /api/chat (auth, session claim, steps written, history loaded,
 * provider call, UI stream) against calling the same fake LLM directly with the OpenAI SDK,
 * interleaved in one run so both see the same machine state. Three conversations:
 * - new: every request opens a new session;
 * - continuing 20 / 100: every request continues a session that already holds 20 (or 100) turns,
 *   as people mostly continue conversations (each primed session takes 10 measured turns, so its
 *   history grows from N to N + 10 turns; each turn is a user message and a reply).
 * - the OpenAI-compatible API: POST /v1/chat/completions (streaming, with the openai SDK); each of
 *   its requests starts a session of its own, inside the timing.
 * Prints the added milliseconds at p50/p99 and the ratio of the medians for each.
 * Target (DESIGN.md): p50 ≤ 10 ms, p99 ≤ 40 ms added, for all of them.
 *
 *   npm run build && npx tsx bench/chat-overhead.ts [iterations per conversation, default 100]
 *   BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/chat-overhead.ts   (a fresh PostgreSQL database)
 */
import os from "node:os";
import OpenAI from "openai";
import { startFakeLlm } from "../tests/fake-llm/server";
import { benchDatabase, createApiToken, percentile, startApp } from "./support";

const iterations = Number(process.argv[2] ?? 100);
const TURNS_PER_SESSION = 10;
const fake = await startFakeLlm();
fake.script(() => ({ text: "The quick brown fox jumps over the lazy dog.", chunks: 8 }));
const database = await benchDatabase();
const app = await startApp({ ...database.env, OPENAI_BASE_URL: fake.openaiBaseUrl, OPENAI_API_KEY: "bench", XCLAW_PROVIDERS: "openai" });
const direct = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: "bench", maxRetries: 0 });

try {
  const token = await createApiToken(app.url);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  async function newSession(): Promise<string> {
    const created = await fetch(`${app.url}/api/sessions`, { method: "POST", headers, body: "{}" });
    return ((await created.json()) as { session: { id: string } }).session.id;
  }

  /** One message into a session; the time to its first text delta. */
  async function viaApp(sessionId: string, turn: number): Promise<number> {
    const started = performance.now();
    const text = `message ${turn}: how does the story go on?`;
    const response = await fetch(`${app.url}/api/chat`, { method: "POST", headers, body: JSON.stringify({ sessionId, text }) });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let firstToken = 0;
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (!firstToken && buffer.includes('"type":"text-delta"')) firstToken = performance.now() - started;
    }
    if (!firstToken) throw new Error(`no text from /api/chat: ${buffer.slice(0, 300)}`);
    return firstToken;
  }

  const throughApi = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: token, maxRetries: 0 });
  async function viaOpenAiApi(): Promise<number> {
    const started = performance.now();
    const stream = await throughApi.chat.completions.create({ model: "xclaw", messages: [{ role: "user", content: "hello" }], stream: true });
    let firstToken = 0;
    for await (const chunk of stream) if (!firstToken && chunk.choices[0]?.delta?.content) firstToken = performance.now() - started;
    if (!firstToken) throw new Error("no text from /v1/chat/completions");
    return firstToken;
  }

  async function viaSdk(): Promise<number> {
    const started = performance.now();
    const stream = await direct.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }], stream: true });
    let firstToken = 0;
    for await (const chunk of stream) if (!firstToken && chunk.choices[0]?.delta?.content) firstToken = performance.now() - started;
    return firstToken;
  }

  /** The sessions a conversation's measured requests go to, in order (primed to `history` turns). */
  async function sessionsFor(history: number): Promise<string[]> {
    if (history === 0) return Promise.all(Array.from({ length: iterations }, newSession));
    const sessions: string[] = [];
    for (let index = 0; index < Math.ceil(iterations / TURNS_PER_SESSION); index++) {
      const id = await newSession();
      for (let turn = 0; turn < history; turn++) await viaApp(id, turn);
      sessions.push(id);
    }
    return Array.from({ length: iterations }, (_, index) => sessions[Math.floor(index / TURNS_PER_SESSION)]!);
  }

  const warmSession = await newSession();
  for (let warm = 0; warm < 10; warm++) {
    await viaApp(warmSession, warm);
    await viaOpenAiApi();
    await viaSdk();
  }
  const fmt = (value: number) => value.toFixed(2);
  console.log(`chat-overhead: ${iterations} interleaved pairs per conversation, database ${database.name}`);
  for (const [label, history] of [
    ["new session", 0],
    ["continuing, 20 turns", 20],
    ["continuing, 100 turns", 100],
    ["POST /v1/chat/completions, a new session each", -1],
  ] as const) {
    const sessions = history < 0 ? [] : await sessionsFor(history);
    const viaXclaw = (index: number) => (history < 0 ? viaOpenAiApi() : viaApp(sessions[index]!, history + index));
    const appTimes: number[] = [];
    const directTimes: number[] = [];
    const added: number[] = [];
    for (let index = 0; index < iterations; index++) {
      // Alternate which goes first so neither always runs on a warmer machine.
      let appTime: number;
      let directTime: number;
      if (index % 2) {
        directTime = await viaSdk();
        appTime = await viaXclaw(index);
      } else {
        appTime = await viaXclaw(index);
        directTime = await viaSdk();
      }
      appTimes.push(appTime);
      directTimes.push(directTime);
      added.push(appTime - directTime);
    }
    console.log(`\n  ${label} (load average ${os.loadavg()[0]!.toFixed(1)})`);
    console.log(`    direct SDK TTFT   p50 ${fmt(percentile(directTimes, 50))} ms  p99 ${fmt(percentile(directTimes, 99))} ms`);
    console.log(`    via xclaw         p50 ${fmt(percentile(appTimes, 50))} ms  p99 ${fmt(percentile(appTimes, 99))} ms`);
    console.log(`    added by xclaw    p50 ${fmt(percentile(added, 50))} ms  p99 ${fmt(percentile(added, 99))} ms   (target p50 ≤ 10, p99 ≤ 40)`);
    console.log(`    ratio of medians  ${fmt(percentile(appTimes, 50) / percentile(directTimes, 50))}x`);
  }
} finally {
  await app.stop();
  await fake.close();
  await database.drop();
}

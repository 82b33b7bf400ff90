/**
 * Time to first token through POST /api/chat (auth, session claim, steps written, history loaded,
 * provider call, UI stream) against calling the same fake LLM directly with the OpenAI SDK,
 * interleaved in one run so both see the same machine state. Prints the added milliseconds at
 * p50/p99 and the ratio of the medians. Target (DESIGN.md): p50 ≤ 10 ms, p99 ≤ 40 ms added.
 * The OpenAI-compatible API (POST /v1/chat/completions, streaming, with the openai SDK) is measured
 * in the same rounds; each of its requests starts a session of its own, inside the timing.
 *
 *   npm run build && npx tsx bench/chat-overhead.ts [iterations]
 *   BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/chat-overhead.ts   (a fresh PostgreSQL database)
 */
import OpenAI from "openai";
import { startFakeLlm } from "../tests/fake-llm/server";
import { benchDatabase, createApiToken, percentile, startApp } from "./support";

const iterations = Number(process.argv[2] ?? 200);
const fake = await startFakeLlm();
fake.script(() => ({ text: "The quick brown fox jumps over the lazy dog.", chunks: 8 }));
const database = await benchDatabase();
const app = await startApp({ ...database.env, OPENAI_BASE_URL: fake.openaiBaseUrl, OPENAI_API_KEY: "bench", XCLAW_PROVIDERS: "openai" });
const direct = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: "bench", maxRetries: 0 });

try {
  const token = await createApiToken(app.url);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  async function viaApp(): Promise<number> {
    const created = await fetch(`${app.url}/api/sessions`, { method: "POST", headers, body: "{}" });
    const { session } = (await created.json()) as { session: { id: string } };
    const started = performance.now();
    const response = await fetch(`${app.url}/api/chat`, { method: "POST", headers, body: JSON.stringify({ sessionId: session.id, text: "hello" }) });
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

  for (let warm = 0; warm < 10; warm++) {
    await viaApp();
    await viaSdk();
    await viaOpenAiApi();
  }
  const appTimes: number[] = [];
  const directTimes: number[] = [];
  const added: number[] = [];
  const apiTimes: number[] = [];
  const apiAdded: number[] = [];
  for (let index = 0; index < iterations; index++) {
    // Alternate which goes first so neither always runs on a warmer machine.
    let appTime: number;
    let directTime: number;
    if (index % 2) {
      directTime = await viaSdk();
      appTime = await viaApp();
    } else {
      appTime = await viaApp();
      directTime = await viaSdk();
    }
    appTimes.push(appTime);
    directTimes.push(directTime);
    added.push(appTime - directTime);
    const apiTime = await viaOpenAiApi();
    apiTimes.push(apiTime);
    apiAdded.push(apiTime - directTime);
  }
  const fmt = (value: number) => value.toFixed(2);
  console.log(`chat-overhead: ${iterations} interleaved pairs, database ${database.name}, load average ${(await import("node:os")).loadavg()[0]!.toFixed(1)}`);
  console.log(`  direct SDK TTFT   p50 ${fmt(percentile(directTimes, 50))} ms  p99 ${fmt(percentile(directTimes, 99))} ms`);
  console.log(`  via /api/chat     p50 ${fmt(percentile(appTimes, 50))} ms  p99 ${fmt(percentile(appTimes, 99))} ms`);
  console.log(`  added by xclaw    p50 ${fmt(percentile(added, 50))} ms  p99 ${fmt(percentile(added, 99))} ms   (target p50 ≤ 10, p99 ≤ 40)`);
  console.log(`  ratio of medians  ${fmt(percentile(appTimes, 50) / percentile(directTimes, 50))}x`);
  console.log(`  via /v1 (new session each) p50 ${fmt(percentile(apiTimes, 50))} ms  p99 ${fmt(percentile(apiTimes, 99))} ms; added p50 ${fmt(percentile(apiAdded, 50))} ms  p99 ${fmt(percentile(apiAdded, 99))} ms`);
} finally {
  await app.stop();
  await fake.close();
  await database.drop();
}

/**
 * QQ callbacks through the built app, started as `npm start` starts it, at a steady rate:
 *
 * - callback → acknowledgement ({"op":12,"d":0}) at p50/p99: the route reads the body, checks the
 *   Ed25519 signature, records the message and queues its job; the agent runs later;
 * - callback → first reply sent to QQ at p50/p99: the job, the run with the scripted fake model
 *   (answers at once), the access token (cached) and the passive reply to a fake QQ OpenAPI;
 * - the app's CPU time per event (its whole process tree, from /proc), which says how many events
 *   a second a core can take.
 *
 * Every event is a group message from one bound member in a group of its own (each its own
 * session, so none waits for another's run). The fake model runs in a process of its own; the
 * fake QQ in this one. Target (DESIGN.md): ack p99 ≤ 50 ms at 50 events/s. Prints figures,
 * asserts nothing.
 *
 *   npm run build && npm run bench:channels [events=500] [events per second=50] [jobs.concurrency or -] [unbound]
 *   BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:channels   (a fresh PostgreSQL database)
 */
import { randomBytes } from "node:crypto";
import { signQqCallback, startFakeQq } from "../tests/support/fake-qq";
import { benchConfig, benchDatabase, createApiToken, percentile, processTreeCpuSeconds, startApp, startFakeLlmProcess } from "./support";

const events = Number(process.argv[2] ?? 500);
const perSecond = Number(process.argv[3] ?? 50);
/** jobs.concurrency of the app: each channels.message job holds a slot while it follows its run. */
const jobSlots = process.argv[4] && process.argv[4] !== "-" ? Number(process.argv[4]) : undefined;
/** "unbound": the messages come from someone not bound, so each gets the instruction and no run (the channel's own cost). */
const unbound = process.argv[5] === "unbound";
const APP_ID = "102030405";
const SECRET = "bench-qq-bot-secret-0123456789ab";
const WARM_UP = 20;

const fake = await startFakeLlmProcess();
await fetch(`${fake.url}/_control/script`, { method: "POST", body: JSON.stringify({ replies: Array.from({ length: events + WARM_UP + 10 }, () => ({ text: "ok" })) }) });
const qq = await startFakeQq({ appId: APP_ID, secret: SECRET });
const configFile = await benchConfig([
  [["channels", "allowedPrivateHosts"], ["127.0.0.1"]],
  // One member in many groups: many runs of one user at once.
  [["runs", "maxConcurrentPerUser"], 10_000],
  // Only the answer's model call is measured, not a title summary after it.
  [["chat", "summarizeTitles"], false],
  [["browser", "worker"], "off"],
  [["plugins", "host"], "off"],
  ...(jobSlots ? ([[["jobs", "concurrency"], jobSlots]] as [string[], unknown][]) : []),
]);
const database = await benchDatabase();
const app = await startApp({ ...database.env, OPENAI_BASE_URL: fake.openaiBaseUrl, OPENAI_API_KEY: "bench", XCLAW_PROVIDERS: "openai", XCLAW_CONFIG: configFile });

async function post(accountId: string, payload: unknown): Promise<{ status: number; ms: number; at: number }> {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers = { "content-type": "application/json", "x-signature-ed25519": signQqCallback(SECRET, timestamp, body), "x-signature-timestamp": timestamp };
  const at = performance.now();
  const response = await fetch(`${app.url}/api/channels/qq/${accountId}/callback`, { method: "POST", headers, body });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - at, at };
}

function groupMessage(group: string, content: string, member = "BENCH_MEMBER") {
  const id = `BENCH_${group}_${randomBytes(6).toString("hex")}`;
  return { id, payload: { op: 0, id: `GROUP_AT_MESSAGE_CREATE:${id}`, t: "GROUP_AT_MESSAGE_CREATE", d: { id, content, timestamp: new Date().toISOString(), group_openid: group, author: { member_openid: member } } } };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}

try {
  const token = await createApiToken(app.url);
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const created = await fetch(`${app.url}/api/admin/channels`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ kind: "qq", name: "Bench", appId: APP_ID, appSecret: SECRET, apiBaseUrl: qq.apiBaseUrl, tokenUrl: qq.tokenUrl }),
  });
  const { channel } = (await created.json()) as { channel: { id: string } };
  const { code } = (await (await fetch(`${app.url}/api/me/channel-bindings/code`, { method: "POST", headers: auth })).json()) as { code: string };
  await post(channel.id, groupMessage("BIND", `/bind ${code}`).payload);
  if (!(await waitFor(() => qq.sent.length > 0, 30_000))) throw new Error("the bind confirmation never arrived");

  // Warm up: routes compiled, connections open, the access token cached.
  for (let index = 0; index < WARM_UP; index++) await post(channel.id, groupMessage(`WARM_${index}`, "warm up").payload);
  await waitFor(() => qq.sent.length >= WARM_UP + 1, 60_000);

  const sentAt = new Map<string, number>();
  const acks: number[] = [];
  let refused = 0;
  const cpuBefore = processTreeCpuSeconds(app.pid);
  const started = performance.now();
  const posts: Promise<void>[] = [];
  for (let index = 0; index < events; index++) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const message = groupMessage(`GROUP_${index}`, `question ${index}`, unbound ? "STRANGER" : "BENCH_MEMBER");
    posts.push(
      post(channel.id, message.payload).then((result) => {
        sentAt.set(message.id, result.at);
        acks.push(result.ms);
        if (result.status !== 200) refused++;
      }),
    );
  }
  await Promise.all(posts);
  const sendSeconds = (performance.now() - started) / 1000;
  await waitFor(() => [...sentAt.keys()].every((id) => qq.sent.some((send) => send.body.msg_id === id)), 300_000);
  const cpuSeconds = processTreeCpuSeconds(app.pid) - cpuBefore;
  const firstReply = new Map<string, number>();
  for (const send of qq.sent) if (sentAt.has(send.body.msg_id) && !firstReply.has(send.body.msg_id)) firstReply.set(send.body.msg_id, send.receivedAt - sentAt.get(send.body.msg_id)!);
  const replies = [...firstReply.values()];
  const fmt = (value: number) => value.toFixed(1);
  console.log(`\nQQ callbacks, ${database.name}: ${events} group messages ${unbound ? "from an unbound sender (no runs) " : ""}at ${perSecond}/s (sent in ${sendSeconds.toFixed(1)} s), jobs.concurrency ${jobSlots ?? "as configured"}`);
  console.log(`  callback → ack          p50 ${fmt(percentile(acks, 50))} ms   p99 ${fmt(percentile(acks, 99))} ms   max ${fmt(Math.max(...acks))} ms   (not 200: ${refused})`);
  if (replies.length) console.log(`  callback → first reply  p50 ${fmt(percentile(replies, 50))} ms   p99 ${fmt(percentile(replies, 99))} ms   max ${fmt(Math.max(...replies))} ms   (${replies.length} of ${events} answered)`);
  else console.log("  callback → first reply  no replies arrived");
  console.log(`  app CPU ${fmt(cpuSeconds)} s for ${events} events: ${fmt((cpuSeconds * 1000) / events)} ms an event (callback, job, run, reply); access tokens fetched: ${qq.tokenRequests.length}`);
} finally {
  await app.stop();
  await database.drop();
  await qq.close();
  await fake.stop();
}

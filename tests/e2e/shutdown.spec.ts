import { expect, test } from "@playwright/test";
import { killAppProcess, startAppProcess, stopAppProcess, type TAppProcess } from "./app-process";
import { signUp, uniqueEmail } from "./helpers";

/**
 * SIGTERM to a production server's whole process group, as systemd and `docker stop` with an init
 * send it (lib/app/shutdown.ts): readiness turns 503 at once, a new chat gets 503 with
 * Retry-After, a chat in progress still receives its whole answer, a run longer than the drain
 * time is handed over and finished by the other process with no step lost or repeated, and every
 * process exits with status 0 within drainSeconds + 5 s. Two processes on one PostgreSQL database,
 * so it runs in the PostgreSQL pass of the e2e suite.
 */
const databaseUrl = process.env.DATABASE_URL;
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const DRAIN_SECONDS = 6;

test.skip(process.env.E2E_DATABASE !== "postgres" || !databaseUrl, "two app processes need PostgreSQL");
test.describe.configure({ mode: "serial", timeout: 240_000 });

const startApp = (name: string) =>
  startAppProcess({
    name,
    env: { DATABASE_URL: databaseUrl, OPENAI_BASE_URL: `${fakeUrl}/v1`, OPENAI_API_KEY: "e2e-key", XCLAW_PROVIDERS: "openai" },
    config: [
      [["runs", "leaseSeconds"], 3],
      [["runs", "heartbeatSeconds"], 1],
      [["shutdown", "drainSeconds"], DRAIN_SECONDS],
      // The hand-over is a job: the other process's runner must look for it promptly.
      [["jobs", "pollIntervalMs"], 200],
    ],
  });

async function script(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

function streamedText(body: string): string {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("");
}

let token = "";
const email = uniqueEmail("shutdown");
const apps: TAppProcess[] = [];

const api = (app: TAppProcess, route: string, init: RequestInit = {}) =>
  fetch(`${app.url}${route}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

async function newSession(app: TAppProcess): Promise<string> {
  const response = await api(app, "/api/sessions", { method: "POST", body: "{}" });
  expect(response.status).toBe(201);
  return ((await response.json()) as { session: { id: string } }).session.id;
}

async function sessionState(app: TAppProcess, sessionId: string) {
  return ((await (await api(app, `/api/sessions/${sessionId}`)).json()) as { session: { status: string; statusReason: string | null } }).session;
}

/** Resolves with the exit status and how long after `since` the process group's leader exited. */
function exitOf(app: TAppProcess, since: number): Promise<{ code: number | null; signal: string | null; afterMs: number }> {
  return new Promise((resolve) => app.process.once("exit", (code, signal) => resolve({ code, signal, afterMs: Date.now() - since })));
}

test.beforeAll(async ({ browser }) => {
  apps.push(...(await Promise.all([startApp("drain-a"), startApp("drain-b")])));
  // The suite's own app shares the database: the account made there works on both processes.
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email });
  token = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "shutdown" }) });
    return ((await response.json()) as { token: string }).token;
  });
  await context.close();
});

test.afterAll(async () => {
  await Promise.all(apps.map((app) => stopAppProcess(app)));
});

test("@database SIGTERM drains: the chat in progress gets its whole answer, new chats get 503, the process exits 0 in time", async () => {
  const [a] = apps;
  const sessionId = await newSession(a!);
  const reply = "one two three four five six seven eight";
  // About 2 s of streaming, well inside the drain time.
  await script([{ text: reply, chunks: 8, chunkDelayMs: 250 }]);
  const chat = api(a!, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId, text: "count" }) });
  await expect.poll(async () => (await sessionState(a!, sessionId)).status).toBe("running");
  expect((await fetch(`${a!.url}/api/health?ready=1`)).status).toBe(200);

  const signalled = Date.now();
  const exited = exitOf(a!, signalled);
  killAppProcess(a!, "SIGTERM");
  await expect.poll(async () => (await fetch(`${a!.url}/api/health?ready=1`)).status, { timeout: 5_000 }).toBe(503);
  // Liveness stays up while draining.
  expect((await fetch(`${a!.url}/api/health`)).status).toBe(200);
  const refused = await api(a!, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId: await newSession(a!), text: "hello?" }) });
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toBeTruthy();

  expect(streamedText(await (await chat).text())).toBe(reply);
  const { code, afterMs } = await exited;
  expect(code).toBe(0);
  expect(afterMs).toBeLessThan((DRAIN_SECONDS + 5) * 1000);
  expect(await sessionState(apps[1]!, sessionId)).toMatchObject({ status: "success" });
});

test("@database a run longer than the drain time is handed over and finished by the other process", async () => {
  const b = apps[1]!;
  const c = await startApp("drain-c");
  apps.push(c);
  const sessionId = await newSession(c);
  // The first call never answers in time; the resumed run gets the second reply.
  await script([{ hang: true }, { text: "Finished after the hand-over." }]);
  void api(c, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId, text: "a long task" }) }).then((response) => response.text(), () => "");
  await expect.poll(async () => (await sessionState(b, sessionId)).status).toBe("running");

  const signalled = Date.now();
  const exited = exitOf(c, signalled);
  killAppProcess(c, "SIGTERM");
  const { code, afterMs } = await exited;
  expect(code).toBe(0);
  expect(afterMs).toBeLessThan((DRAIN_SECONDS + 5) * 1000);

  await expect.poll(async () => (await sessionState(b, sessionId)).status, { timeout: 60_000 }).toBe("success");
  const steps = ((await (await api(b, `/api/sessions/${sessionId}/steps`)).json()) as { steps: { type: string; name: string; status: string; output: unknown }[] }).steps;
  // One message, one model call stopped by the hand-over, the resume note, one model call that answered.
  expect(steps.filter((step) => step.type === "user_input")).toHaveLength(1);
  const models = steps.filter((step) => step.type === "model_call");
  expect(models.map((step) => step.status)).toEqual(["failed", "completed"]);
  expect(steps.some((step) => step.type === "system_note" && step.name === "resume")).toBe(true);
});

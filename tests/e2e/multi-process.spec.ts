import { expect, test } from "@playwright/test";
import { killAppProcess, startAppProcess, stopAppProcess, type TAppProcess } from "./app-process";
import { PASSWORD, signUp, uniqueEmail } from "./helpers";

/**
 * Two real app processes on one PostgreSQL database, as behind a load balancer: a run started in
 * process A is followed live and stopped from process B, and when A is killed mid-run, B resumes
 * it. Runs only in the PostgreSQL pass of the e2e suite (the embedded database allows one process).
 */
const databaseUrl = process.env.DATABASE_URL;
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

test.skip(process.env.E2E_DATABASE !== "postgres" || !databaseUrl, "two app processes need PostgreSQL");
test.describe.configure({ mode: "serial", timeout: 240_000 });

type TApp = TAppProcess;

const startApp = (name: string) =>
  startAppProcess({
    name,
    env: { DATABASE_URL: databaseUrl, OPENAI_BASE_URL: `${fakeUrl}/v1`, OPENAI_API_KEY: "e2e-key", XCLAW_PROVIDERS: "openai" },
    // Short leases so that a killed process is noticed within seconds.
    config: [
      [["runs", "leaseSeconds"], 3],
      [["runs", "heartbeatSeconds"], 1],
    ],
  });

async function script(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

/** The assistant text in an AI SDK UI message stream. */
function streamedText(body: string): string {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("");
}

let a: TApp | undefined;
let b: TApp | undefined;
let token = "";
const email = uniqueEmail("two-processes");

const api = (app: TApp, route: string, init: RequestInit = {}) =>
  fetch(`${app.url}${route}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

async function newSession(app: TApp): Promise<string> {
  const response = await api(app, "/api/sessions", { method: "POST", body: "{}" });
  expect(response.status).toBe(201);
  return ((await response.json()) as { session: { id: string } }).session.id;
}

async function sessionState(app: TApp, sessionId: string) {
  return ((await (await api(app, `/api/sessions/${sessionId}`)).json()) as { session: { status: string; statusReason: string | null; interrupted: boolean; live: boolean } }).session;
}

test.beforeAll(async ({ browser }) => {
  [a, b] = await Promise.all([startApp("a"), startApp("b")]);
  // A user and an API token, made through the app under test (same database).
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email });
  token = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "two processes" }) });
    return ((await response.json()) as { token: string }).token;
  });
  await context.close();
});

test.afterAll(async () => {
  await Promise.all([stopAppProcess(a), stopAppProcess(b)]);
});

test("@database a run started in process A is followed live from process B, from its first token", async () => {
  const sessionId = await newSession(a!);
  const reply = "one two three four five six seven eight nine ten";
  await script([{ text: reply, chunks: 10, chunkDelayMs: 250 }]);
  const started = api(a!, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId, text: "count to ten" }) });
  // Wait until A has claimed the session, then follow from B.
  await expect.poll(async () => (await sessionState(b!, sessionId)).status).toBe("running");
  const followed = await api(b!, `/api/chat/${sessionId}/stream`);
  expect(followed.status).toBe(200);
  const [fromB, fromA] = await Promise.all([followed.text(), started.then((response) => response.text())]);
  expect(streamedText(fromA)).toBe(reply);
  expect(streamedText(fromB)).toBe(reply);
  expect(fromB).toContain('"type":"finish"');
  // Nothing runs any more: the reconnect endpoint says so on either process.
  expect((await api(b!, `/api/chat/${sessionId}/stream`)).status).toBe(204);
  expect((await api(a!, `/api/chat/${sessionId}/stream`)).status).toBe(204);
});

test("@database Stop in process B stops the run in process A", async () => {
  const sessionId = await newSession(a!);
  await script([{ hang: true }]);
  const started = api(a!, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId, text: "think forever" }) });
  await expect.poll(async () => (await sessionState(b!, sessionId)).status).toBe("running");
  const stop = await api(b!, `/api/sessions/${sessionId}/stop`, { method: "POST", body: "{}" });
  expect(await stop.json()).toEqual({ stopped: true });
  expect(await (await started).text()).toContain("Stopped by the user.");
  expect(await sessionState(a!, sessionId)).toMatchObject({ status: "failed", statusReason: "stopped by the user" });
  // Stopping again finds nothing to stop.
  expect(await (await api(b!, `/api/sessions/${sessionId}/stop`, { method: "POST", body: "{}" })).json()).toEqual({ stopped: false });
});

test("@database when process A dies mid-run, process B explains the interruption and resumes the session", async ({ browser }) => {
  const sessionId = await newSession(a!);
  await script([{ hang: true }, { text: "Picked up where we left off." }]);
  void api(a!, "/api/chat", { method: "POST", body: JSON.stringify({ sessionId, text: "a long task" }) }).catch(() => undefined);
  await expect.poll(async () => (await sessionState(b!, sessionId)).status).toBe("running");
  killAppProcess(a!, "SIGKILL");
  // B sees a live run until A's lease (3 s here) runs out, then an interrupted one.
  await expect.poll(async () => (await sessionState(b!, sessionId)).interrupted, { timeout: 20_000 }).toBe(true);
  // The person opens the chat on B: the interruption is explained once, with Resume.
  const context = await browser.newContext({ baseURL: b!.url });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/" || url.pathname.startsWith("/chat/"));
  await page.goto(`/chat/${sessionId}`);
  const notice = page.getByTestId("interrupted-notice");
  await expect(notice).toHaveCount(1);
  await notice.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("Picked up where we left off.");
  await expect(notice).toHaveCount(0);
  await context.close();
  expect(await sessionState(b!, sessionId)).toMatchObject({ status: "success", interrupted: false, live: false });
});

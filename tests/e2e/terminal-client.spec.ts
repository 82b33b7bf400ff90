import { readFile, rm, stat, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";
import type { TSessionView } from "@/lib/wire/chat";
import { freePort } from "../../lib/net/free-port";
import { signUp, uniqueEmail } from "./helpers";
import { linkedSessionId, removeXclawHomes, runXclaw, startXclaw, xclawHome, type TXclawSession } from "./xclaw-process";

/**
 * The terminal client (`npx xclaw`, scripts/xclaw) against the running app: a real process that
 * speaks only the public HTTP API with a personal API token, driven through pipes. The scripted
 * model is the run's fake LLM (tests/fake-llm). Runs in the PGlite pass only: the client sees
 * nothing of the database.
 */
test.skip(process.env.E2E_DATABASE !== "pglite", "one pass is enough: the client sees only HTTP");
test.describe.configure({ timeout: 120_000 });

const baseUrl = new URL(process.env.E2E_BASE_URL ?? "http://localhost:3000").origin;
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const dataDirectory = process.env.E2E_DATA_DIR!;
// The client's own processes start tsx and load the `ai` package: give them room on a busy machine.
const OUTPUT_TIMEOUT = { timeout: 60_000 };

let email: string;
let token: string;
let userId: string;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
}

async function api<T>(pathname: string, init: RequestInit = {}, bearer = token): Promise<T> {
  const response = await fetch(`${baseUrl}${pathname}`, { ...init, headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", ...init.headers } });
  expect(response.ok, `${pathname}: ${response.status}`).toBe(true);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** The environment of a client logged in through XCLAW_URL / XCLAW_TOKEN. */
async function loggedIn(): Promise<NodeJS.ProcessEnv> {
  const { env } = await xclawHome();
  return { ...env, XCLAW_URL: baseUrl, XCLAW_TOKEN: token };
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

async function quit(chat: TXclawSession) {
  chat.endInput();
  const { code } = await chat.exited;
  expect(code, chat.stderr()).toBe(0);
}

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  email = uniqueEmail("terminal");
  await signUp(page, { email });
  // Settings → API tokens does this POST.
  const created = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "terminal" }) });
    return (await response.json()) as { token: string };
  });
  token = created.token;
  userId = (await api<{ id: string }>("/api/me")).id;
  await context.close();
});

test.afterAll(removeXclawHomes);

test("login checks the token and stores it 0600 in a 0700 directory; a refused token is not stored; logout forgets it", async () => {
  const { env, configDirectory } = await xclawHome();
  const file = path.join(configDirectory, "config.json");

  const refused = await runXclaw(["login", baseUrl, "--token", `xclaw_${"x".repeat(43)}`], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("refused this token, so nothing was stored");
  await expect(stat(file)).rejects.toThrow();

  // The token is asked for; from a pipe it is read without being echoed.
  const accepted = await runXclaw(["login", `${baseUrl}/chat/whatever`], env, `${token}\n`);
  expect(accepted.code, accepted.stderr).toBe(0);
  expect(accepted.stdout).toContain(`Logged in to ${baseUrl} as ${email}.`);
  expect(accepted.stdout + accepted.stderr).not.toContain(token);
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(configDirectory)).mode & 0o777).toBe(0o700);
  expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ url: baseUrl, token });

  const listed = await runXclaw(["sessions"], env);
  expect(listed.code, listed.stderr).toBe(0);

  const out = await runXclaw(["logout"], env);
  expect(out.code).toBe(0);
  await expect(stat(file)).rejects.toThrow();
  const afterwards = await runXclaw(["sessions"], env);
  expect(afterwards.code).toBe(1);
  expect(afterwards.stderr).toContain("Not logged in.");
});

test("chat streams the reply with a tool card for the call and its result", async () => {
  await scriptModel([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "The answer is 42.", chunks: 6, chunkDelayMs: 40 }]);
  const chat = startXclaw(["chat"], await loggedIn());
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("you> ");
  chat.write("What is 6 * 7?\n");
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("The answer is 42.");
  const output = chat.stdout();
  expect(output).toContain('⚙ calculator expression="6 * 7"');
  expect(output).toMatch(/✓ calculator · s\d{4} · \d+ ms: 6 \* 7 = 42/);
  // The card comes before the answer, as on the web.
  expect(output.indexOf("✓ calculator")).toBeLessThan(output.indexOf("The answer is 42."));
  await quit(chat);
  const steps = await api<{ steps: { type: string; name: string; status: string }[] }>(`/api/sessions/${linkedSessionId(output)}/steps`);
  expect(steps.steps).toContainEqual(expect.objectContaining({ type: "tool_call", name: "calculator", status: "completed" }));
});

test("a call that needs approval shows the web card's preview and is approved or denied in the terminal, also in a later chat", async () => {
  const workspace = path.join(dataDirectory, "workspaces", userId);
  await rm(path.join(workspace, "plan.md"), { force: true });
  await scriptModel([
    { toolCalls: [{ name: "write_file", arguments: { path: "plan.md", content: "# Plan\n\n- ship it\n" } }] },
    { text: "I wrote plan.md for you." },
    { toolCalls: [{ name: "write_file", arguments: { path: "nope.md", content: "no\n" } }] },
    { text: "Understood, I did not write it." },
  ]);
  const question = "Approve? [y]es, [n]o, [a]lways allow write_file in this chat: ";
  const first = startXclaw(["chat"], await loggedIn());
  await expect.poll(() => first.stdout(), OUTPUT_TIMEOUT).toContain("you> ");
  first.write("Please write plan.md\n");
  await expect.poll(() => first.stdout(), OUTPUT_TIMEOUT).toContain(question);
  const card = first.stdout();
  expect(card).toContain("⏸ write_file waits for your approval");
  expect(card).toContain("┃ write_file · risk: write");
  expect(card).toContain("┃ File: plan.md");
  expect(card).toContain("┃ +- ship it");
  const sessionId = linkedSessionId(card);
  // The input ends before a decision: the call is left waiting, with the link to decide it on the web.
  await quit(first);
  expect(first.stdout()).toContain(`The call still waits for approval: ${baseUrl}/chat/${sessionId}`);
  await expect(stat(path.join(workspace, "plan.md"))).rejects.toThrow();
  expect((await api<TSessionView>(`/api/sessions/${sessionId}`)).session.status).toBe("paused");

  // A later chat in that session shows the waiting call the same way and decides it.
  const chat = startXclaw(["chat", "--session", sessionId], await loggedIn());
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain(question);
  expect(chat.stdout()).toContain("⏸ write_file waits for your approval");
  expect(chat.stdout()).toContain("┃ +- ship it");
  chat.write("y\n");
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("I wrote plan.md for you.");
  expect(await readFile(path.join(workspace, "plan.md"), "utf8")).toBe("# Plan\n\n- ship it\n");
  expect(chat.stdout()).toMatch(/✓ write_file · s\d{4}/);

  await expect.poll(() => occurrences(chat.stdout(), "you> "), OUTPUT_TIMEOUT).toBe(1);
  chat.write("And nope.md\n");
  await expect.poll(() => occurrences(chat.stdout(), question), OUTPUT_TIMEOUT).toBe(2);
  chat.write("n\n");
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("Understood, I did not write it.");
  await quit(chat);
  await expect(stat(path.join(workspace, "nope.md"))).rejects.toThrow();

  // The server recorded both decisions, as the web card would have sent them.
  const view = await api<TSessionView>(`/api/sessions/${sessionId}`);
  const approvals = view.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "data-approval" ? [part.data.status] : [])));
  expect(approvals).toEqual(["approved", "denied"]);
});

test("Ctrl-C stops the run as Stop does, the server records it stopped, and a second Ctrl-C quits", async () => {
  await scriptModel([{ text: "This is a very long answer ".repeat(40), chunks: 80, chunkDelayMs: 150 }]);
  const chat = startXclaw(["chat"], await loggedIn());
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("you> ");
  chat.write("Tell me something long\n");
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("This is a very long answer");
  chat.process.kill("SIGINT");
  await expect.poll(() => chat.stdout(), OUTPUT_TIMEOUT).toContain("Stopped by the user.");
  // Still running, back at the prompt.
  await expect.poll(() => occurrences(chat.stdout(), "you> "), OUTPUT_TIMEOUT).toBe(2);
  expect(chat.process.exitCode).toBeNull();
  const view = await api<TSessionView>(`/api/sessions/${linkedSessionId(chat.stdout())}`);
  expect(view.session).toMatchObject({ status: "failed", statusReason: "stopped by the user", live: false });
  expect(occurrences(chat.stdout(), "This is a very long answer")).toBeLessThan(40);

  chat.process.kill("SIGINT");
  expect((await chat.exited).code).toBe(130);
});

test("run: the answer on stdout and exit 0; a failed run exits 1; a call that needs approval exits 3 with the web link", async () => {
  const env = await loggedIn();
  await scriptModel([{ text: "Forty-two." }]);
  const success = await runXclaw(["run", "What is the answer?"], env);
  expect(success.code, success.stderr).toBe(0);
  expect(success.stdout).toBe("Forty-two.\n");
  expect(success.stderr).toContain(`Session ${baseUrl}/chat/`);

  await scriptModel([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "It is 42." }]);
  const json = await runXclaw(["run", "Compute 6 * 7", "--json"], env);
  expect(json.code, json.stderr).toBe(0);
  const report = JSON.parse(json.stdout);
  expect(report).toMatchObject({ status: "success", text: "It is 42.", url: `${baseUrl}/chat/${report.sessionId}` });
  // Progress went to stderr, so stdout stays one JSON object.
  expect(json.stderr).toMatch(/✓ calculator · s\d{4}/);

  await scriptModel([{ status: 400, errorMessage: "the fake model refuses" }]);
  const failed = await runXclaw(["run", "Fail, please"], env);
  expect(failed.code).toBe(1);
  expect(failed.stdout).toBe("");
  expect(failed.stderr).toMatch(/The run failed: .*the fake model refuses/);

  await scriptModel([{ toolCalls: [{ name: "write_file", arguments: { path: "later.md", content: "later\n" } }] }]);
  const waiting = await runXclaw(["run", "Write later.md", "--json"], env);
  expect(waiting.code).toBe(3);
  const pending = JSON.parse(waiting.stdout);
  expect(pending).toMatchObject({ status: "needs-approval", approval: { toolName: "write_file", risk: "write", preview: { path: "later.md" } } });
  expect(waiting.stderr).toContain(`The run waits for approval of write_file: decide it at ${baseUrl}/chat/${pending.sessionId}`);
  expect((await api<TSessionView>(`/api/sessions/${pending.sessionId}`)).session.status).toBe("paused");
});

test("XCLAW_URL and XCLAW_TOKEN override the stored login; the stored token goes only to its own server", async () => {
  const { env, configDirectory } = await xclawHome();
  // A stored login for a server that is not running.
  const gone = `http://127.0.0.1:${await freePort()}`;
  await mkdir(configDirectory, { recursive: true, mode: 0o700 });
  await writeFile(path.join(configDirectory, "config.json"), JSON.stringify({ url: gone, token: "xclaw_stored_token_for_another_server" }), { mode: 0o600 });

  const unreachable = await runXclaw(["sessions"], env);
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toContain(`Cannot reach ${gone}`);

  const { session } = await api<{ session: { id: string } }>("/api/sessions", { method: "POST", body: JSON.stringify({ title: "Listed from a script" }) });
  const overridden = await runXclaw(["sessions", "--json"], { ...env, XCLAW_URL: baseUrl, XCLAW_TOKEN: token });
  expect(overridden.code, overridden.stderr).toBe(0);
  const listed = JSON.parse(overridden.stdout) as { id: string; title: string }[];
  expect(listed).toContainEqual(expect.objectContaining({ id: session.id, title: "Listed from a script" }));
  const table = await runXclaw(["sessions"], { ...env, XCLAW_URL: baseUrl, XCLAW_TOKEN: token });
  expect(table.stdout).toMatch(new RegExp(`${session.id}\\s+init\\s+web\\s+.*Listed from a script`));

  const urlOnly = await runXclaw(["sessions"], { ...env, XCLAW_URL: baseUrl });
  expect(urlOnly.code).toBe(1);
  expect(urlOnly.stderr).toContain(`the stored token is for ${gone} and is not sent anywhere else`);
});

test("errors say what to do: a revoked token asks to log in again, an unknown session is not found", async () => {
  const spare = await api<{ id: string; token: string }>("/api/tokens", { method: "POST", body: JSON.stringify({ name: "spare" }) });
  await api(`/api/tokens/${spare.id}`, { method: "DELETE" });
  const { env } = await xclawHome();
  const revoked = await runXclaw(["jobs"], { ...env, XCLAW_URL: baseUrl, XCLAW_TOKEN: spare.token });
  expect(revoked.code).toBe(1);
  expect(revoked.stderr).toContain(`${baseUrl} refused the token`);
  expect(revoked.stderr).toContain(`log in again: xclaw login ${baseUrl}`);

  const missing = await runXclaw(["steps", crypto.randomUUID()], await loggedIn());
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("No such session.");

  const jobs = await runXclaw(["jobs"], await loggedIn());
  expect(jobs.code, jobs.stderr).toBe(0);
  expect(jobs.stdout).toContain("No scheduled jobs.");
});

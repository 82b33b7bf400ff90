import { expect, test } from "@playwright/test";
import { startAppProcess, stopAppProcess, type TAppProcess } from "./app-process";
import { signUp, uniqueEmail } from "./helpers";
import { removeXclawHomes, runXclaw, xclawHome } from "./xclaw-process";

/**
 * An install with no model provider (a fresh `npm run dev` without keys): an app of its own, on its
 * own embedded database, started with every provider variable removed. The page says so once, where
 * it matters, with a link to the setup help, and Send stays off. Runs in the PGlite pass only.
 */
test.skip(process.env.E2E_DATABASE !== "pglite", "one pass is enough: the database plays no part");
test.describe.configure({ mode: "serial", timeout: 180_000 });

let app: TAppProcess | undefined;

test.beforeAll(async () => {
  // Starting an app (a fresh embedded database, then Next.js) took over 60 s on a loaded machine.
  test.setTimeout(240_000);
  // Empty rather than removed, so that a developer's .env cannot fill them in again.
  const empty = ["XCLAW_PROVIDERS", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"];
  app = await startAppProcess({ name: "no-model", env: { ...Object.fromEntries(empty.map((key) => [key, ""])), DATABASE_URL: undefined } });
});

test.afterAll(async () => {
  await stopAppProcess(app);
  await removeXclawHomes();
});

test("with no model configured, the welcome page and a chat say so once, Send stays off, and the help explains the setup", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app!.url });
  const page = await context.newPage();
  // The first account is the admin, who is told what to set.
  await signUp(page, { email: uniqueEmail("no-model") });
  await expect(page.getByTestId("no-provider")).toHaveCount(1);
  await expect(page.getByTestId("no-provider")).toContainText("Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL");

  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("no-provider")).toHaveCount(1);
  await page.getByLabel("Message").fill("Hello?");
  await expect(page.getByRole("button", { name: "Send" })).toBeDisabled();

  await page.getByRole("link", { name: "How to set up a model" }).click();
  await page.waitForURL((url) => url.pathname === "/help/models");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.locator("main")).toContainText("OPENAI_BASE_URL");
  await context.close();
});

test("the terminal client says so too: at login, and when a run is refused", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app!.url });
  const page = await context.newPage();
  await signUp(page, { email: uniqueEmail("no-model-terminal") });
  const { token } = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "terminal" }) });
    return (await response.json()) as { token: string };
  });
  await context.close();
  const { env } = await xclawHome();
  const login = await runXclaw(["login", app!.url, "--token", token], env);
  expect(login.code, login.stderr).toBe(0);
  expect(login.stderr).toContain("this server has no model configured yet");
  const run = await runXclaw(["run", "Hello?"], env);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain("No model provider is configured. An administrator needs to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL");
});

import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";

export const PASSWORD = "e2e-password-42";

export function uniqueEmail(name: string): string {
  return `${name}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}@example.com`;
}

export async function signUp(page: Page, options: { email: string; name?: string; password?: string }) {
  await page.goto("/sign-up");
  if (options.name) await page.getByLabel("Name").fill(options.name);
  await page.getByLabel("Email").fill(options.email);
  await page.getByLabel("Password").fill(options.password ?? PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL((url) => url.pathname === "/");
}

/**
 * Opens a new chat from wherever the page is and waits until it is there. "/" may itself redirect
 * to the newest chat, so waiting for any /chat/<id> address could return before the new one opens
 * (and text typed then would be lost with the old page). Call it when the newest chat has
 * messages (or there is none): an empty newest chat is reused, and the address would not change.
 */
export async function openNewChat(page: Page): Promise<string> {
  await page.goto("/");
  await page.waitForLoadState();
  const before = page.url();
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL((url) => /^\/chat\/[0-9a-f-]{36}$/.test(url.pathname) && url.href !== before);
  return page.url().split("/chat/")[1]!;
}

export async function signIn(page: Page, options: { email: string; password?: string }) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(options.email);
  await page.getByLabel("Password").fill(options.password ?? PASSWORD);
  await submitSignIn(page);
}

/** Clicks "Sign in" and waits until next-auth has answered, so each attempt is counted in turn. */
export async function submitSignIn(page: Page) {
  const answered = page.waitForResponse((response) => response.url().includes("/api/auth/callback/credentials"));
  await page.getByRole("button", { name: "Sign in" }).click();
  await answered;
}

export async function signedInContext(browser: Browser, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, { email });
  await page.waitForURL((url) => url.pathname === "/");
  return { context, page };
}

/** Calls the API from inside the page, so the browser's own cookies are used. */
export async function apiStatus(page: Page, path: string): Promise<number> {
  return page.evaluate(async (target) => (await fetch(target)).status, path);
}

export async function expectSignedOut(page: Page) {
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/sign-in/);
  expect(await apiStatus(page, "/api/me")).toBe(401);
}

/** Where the run's first account (the admin, made by accounts.spec.ts) is written down for later specs. */
function adminFile(): string {
  return `${process.env.E2E_DATA_DIR ?? "."}/e2e-admin.json`;
}

export async function rememberAdmin(email: string): Promise<void> {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(adminFile(), JSON.stringify({ email }));
}

/**
 * A page signed in as an admin: the run's admin when accounts.spec.ts made one, else a new account
 * (which is then the first one, and so the admin, when a spec runs on its own).
 */
export async function adminPage(browser: Browser, name: string): Promise<{ context: BrowserContext; page: Page }> {
  const { readFile } = await import("node:fs/promises");
  const known = await readFile(adminFile(), "utf8").then((text) => (JSON.parse(text) as { email: string }).email, () => undefined);
  if (known) return signedInContext(browser, known);
  const context = await browser.newContext();
  const page = await context.newPage();
  const email = uniqueEmail(name);
  await signUp(page, { email });
  await rememberAdmin(email);
  return { context, page };
}

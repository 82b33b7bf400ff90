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

import { expect, test, type Page, type Request } from "@playwright/test";
import { PASSWORD, uniqueEmail } from "./helpers";

/**
 * Before the page's scripts run (a slow connection, a dev server opened under another address),
 * a submit is the browser's own. The scripts are blocked here, so the page never hydrates: the
 * forms must still post, to an address that carries nothing that was typed.
 */
async function withoutScripts(page: Page): Promise<Request[]> {
  await page.route("**/_next/static/chunks/**", (route) => route.abort());
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  return requests;
}

function expectNoSecretInAnyUrl(requests: Request[], secrets: string[]) {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    for (const secret of secrets) expect(request.url(), `${request.method()} ${request.url()}`).not.toContain(encodeURIComponent(secret));
    for (const secret of secrets) expect(request.url()).not.toContain(secret);
  }
}

test("sign-up before the page has hydrated posts nothing into a URL and says to try again", async ({ page }) => {
  const requests = await withoutScripts(page);
  const email = uniqueEmail("prehydration");
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  const submitted = page.waitForRequest((request) => request.method() === "POST" && new URL(request.url()).pathname === "/sign-up");
  await page.getByRole("button", { name: "Create account" }).click();
  const post = await submitted;
  expect(new URL(post.url()).search).toBe("?notice=not-ready");
  await expect(page.getByTestId("form-fallback-notice")).toContainText("The page had not finished loading");
  expectNoSecretInAnyUrl(requests, [PASSWORD, email]);
  expect(requests.some((request) => request.method() === "GET" && new URL(request.url()).search.includes("password"))).toBe(false);
});

test("sign-in before the page has hydrated posts nothing into a URL", async ({ page }) => {
  const requests = await withoutScripts(page);
  const email = uniqueEmail("prehydration-sign-in");
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  const submitted = page.waitForRequest((request) => request.method() === "POST" && new URL(request.url()).pathname === "/sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  expect(new URL((await submitted).url()).search).toBe("?notice=not-ready");
  await expect(page.getByTestId("form-fallback-notice")).toBeVisible();
  expectNoSecretInAnyUrl(requests, [PASSWORD, email]);
});

test("once hydrated, the notice is gone from the address and the form works as usual", async ({ page }) => {
  await page.goto("/sign-in?notice=not-ready");
  await expect(page.getByTestId("form-fallback-notice")).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByLabel("Email").fill(uniqueEmail("nobody"));
  await page.getByLabel("Password").fill("wrong-password-1");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Email or password is incorrect." })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

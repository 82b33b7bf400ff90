import { expect, test } from "@playwright/test";
import { PASSWORD, signedInContext, signUp, submitSignIn, uniqueEmail } from "./helpers";

// Checks over real HTTP against the running server: what only the full stack can show.

test("@database health reports the database and pgvector", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: "ok", database: { kind: process.env.E2E_DATABASE, vector: true } });
});

test("a forged x-middleware-subrequest header does not get past authentication", async ({ request }) => {
  for (const path of ["/api/me", "/api/tokens", "/api/admin/users"]) {
    const response = await request.get(path, { headers: { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware" } });
    expect(response.status(), path).toBe(401);
    expect((await response.json()).error.code).toBe("unauthorized");
  }
});

test("cookie-authenticated mutations from another origin are refused", async ({ browser }) => {
  const email = uniqueEmail("csrf");
  const setup = await browser.newContext();
  await signUp(await setup.newPage(), { email });
  await setup.close();
  const { context, page } = await signedInContext(browser, email);
  const crossOrigin = await context.request.post("/api/tokens", {
    data: { name: "stolen" },
    headers: { origin: "https://evil.example" },
  });
  expect(crossOrigin.status()).toBe(403);
  const sameOrigin = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "mine" }) });
    return response.status;
  });
  expect(sameOrigin).toBe(201);
  await context.close();
});

test("sign-in attempts are rate limited per email with a 'try again in N s' message", async ({ browser }) => {
  const email = uniqueEmail("limited");
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email, password: PASSWORD });
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in/);
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(`wrong-password-${attempt}`);
    await submitSignIn(page);
    await expect(page.getByRole("alert")).toContainText("Email or password is incorrect.");
  }
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await submitSignIn(page);
  await expect(page.getByRole("alert")).toContainText(/Too many failed sign-in attempts\. Try again in \d+ s\./);
  await context.close();
});

import http from "node:http";
import { expect, test } from "@playwright/test";
import { PASSWORD, signedInContext, signUp, submitSignIn, uniqueEmail } from "./helpers";

// Checks over real HTTP against the running server: what only the full stack can show.

test("@database health reports the database and pgvector", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: "ok", database: { kind: process.env.E2E_DATABASE, vector: true } });
});

test("the production server answers POST /api/chat itself, with the API headers, and leaves other methods to Next.js", async ({ request }) => {
  // Next.js marks every app route's answer with Vary: rsc, …; the Node route (lib/http/server-hook.ts) does not.
  const chat = await request.post("/api/chat", { data: { sessionId: crypto.randomUUID(), text: "hi" } });
  expect(chat.status()).toBe(401);
  expect((await chat.json()).error.code).toBe("unauthorized");
  expect(chat.headers()["vary"] ?? "").not.toMatch(/rsc/i);
  expect(chat.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  expect(chat.headers()["x-content-type-options"]).toBe("nosniff");
  expect(chat.headers()["x-request-id"]).toBeTruthy();
  const other = await request.get("/api/chat");
  expect(other.status()).toBe(405);
  expect(other.headers()["vary"]).toMatch(/rsc/i);
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

/** One request over its own TCP connection from a chosen loopback address (any of 127.0.0.0/8). */
function sendFrom(from: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string; sendBody?: boolean } = {}) {
  const base = new URL(process.env.E2E_BASE_URL ?? "http://localhost:3000");
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: base.port, localAddress: from, path, method: options.method ?? (options.body === undefined && options.sendBody !== false ? "GET" : "POST"), headers: { connection: "close", ...options.headers }, agent: false },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text });
          request.destroy();
        });
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (options.sendBody === false) request.flushHeaders();
    else request.end(options.body);
  });
}

async function signInFrom(from: string, email: string, password: string, headers: Record<string, string> = {}): Promise<string | null> {
  const csrf = await sendFrom(from, "/api/auth/csrf");
  const cookie = (csrf.headers["set-cookie"] ?? []).map((line) => line.split(";")[0]).join("; ");
  const body = new URLSearchParams({ email, password, csrfToken: JSON.parse(csrf.text).csrfToken, json: "true" }).toString();
  const answer = await sendFrom(from, "/api/auth/callback/credentials", { headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers }, body });
  return new URL(JSON.parse(answer.text).url).searchParams.get("error");
}

test("the per-IP sign-in limit counts the connection's address; X-Forwarded-For changes nothing", async () => {
  // 50 failures (auth.signInRateLimit.perIp) from 127.0.0.2, each claiming another address and email.
  for (let attempt = 0; attempt < 50; attempt++) {
    const error = await signInFrom("127.0.0.2", uniqueEmail(`spoof${attempt}`), "wrong-password-1", { "x-forwarded-for": `203.0.113.${attempt}`, "x-real-ip": `198.51.100.${attempt}` });
    expect(error).toBe("wrong_credentials");
  }
  const blocked = await signInFrom("127.0.0.2", uniqueEmail("spoof-last"), "wrong-password-1", { "x-forwarded-for": "203.0.113.250" });
  expect(blocked).toMatch(/^rate_limited_\d+$/);
  // Naming another machine in the header neither blocked it nor spared the sender.
  expect(await signInFrom("127.0.0.3", uniqueEmail("bystander"), "wrong-password-1", { "x-forwarded-for": "127.0.0.2" })).toBe("wrong_credentials");
});

test("a JSON body declared larger than the limit is refused with 413 before it is sent", async () => {
  const response = await sendFrom("127.0.0.4", "/api/register", { headers: { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) }, sendBody: false });
  expect(response.status).toBe(413);
  expect(JSON.parse(response.text).error.code).toBe("payload_too_large");
  const textPlain = await sendFrom("127.0.0.4", "/api/register", { headers: { "content-type": "text/plain;charset=application/json" }, body: "{}" });
  expect(textPlain.status).toBe(415);
});

test("pages carry a nonce-based Content-Security-Policy and run without violating it", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => console.error(`csp-violation ${event.violatedDirective} ${event.blockedURI}`));
  });
  page.on("console", (message) => {
    if (message.text().startsWith("csp-violation")) violations.push(message.text());
  });
  const response = await page.goto("/sign-up");
  const policy = response?.headers()["content-security-policy"] ?? "";
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(policy).toContain("frame-ancestors 'none'");
  // Signing up needs the page's scripts: blocked scripts would leave the form inert.
  await signUp(page, { email: uniqueEmail("csp") });
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  expect(violations).toEqual([]);
  const api = await context.request.get("/api/me");
  expect(api.headers()["cache-control"]).toBe("no-store");
  expect(api.headers()["content-security-policy"]).toContain("default-src 'none'");
  await context.close();
});

test("signing out ends the session on the server, so a copy of the cookie stops working", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email: uniqueEmail("copy") });
  const session = (await context.cookies()).find((cookie) => cookie.name.endsWith("next-auth.session-token"))!;
  const copy = await browser.newContext();
  await copy.addCookies([session]);
  expect((await copy.request.get("/api/me")).status()).toBe(200);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL(/\/sign-in/);
  expect((await copy.request.get("/api/me")).status()).toBe(401);
  await context.close();
  await copy.close();
});

import { expect, test } from "@playwright/test";
import { signQqCallback } from "../support/fake-qq";
import { adminPage, signUp, uniqueEmail } from "./helpers";

// An admin adds a QQ bot on /admin/channels; a person gets a binding code in Settings → Channels,
// "QQ" delivers `/bind <code>` as a signed callback to the app, and the person sees the linked
// account, then unlinks it. The bot's reply goes to QQ's real API, which this machine cannot reach
// (or which refuses the made-up secret): the admin page shows that as the bot's last error.
const SECRET = "e2e-qq-bot-secret-0123456789abcd";

test("add a QQ bot, bind a chat account with a one-time code, see it and unlink it", async ({ browser }) => {
  const { context: adminContext, page: admin } = await adminPage(browser, "channels-admin");
  await admin.goto("/admin/channels");
  await expect(admin.getByRole("heading", { name: "Channels", level: 1 })).toBeVisible();
  const form = admin.getByRole("form", { name: "Add a bot" });
  await form.getByLabel("Name").fill("Team helper");
  await form.getByLabel("App ID").fill("102030405");
  await form.getByLabel("App secret").fill(SECRET);
  await form.getByRole("button", { name: "Add bot" }).click();
  const row = admin.getByTestId("channel-account").filter({ hasText: "Team helper" });
  await expect(row).toContainText("QQ · app 102030405 · 0 bound");
  const callbackUrl = (await row.locator("code").textContent())!;
  expect(callbackUrl).toMatch(/\/api\/channels\/qq\/[0-9a-f-]{36}\/callback$/);
  await expect(admin.getByText(SECRET)).toHaveCount(0);

  await row.getByRole("button", { name: "Switch off Team helper" }).click();
  await row.getByRole("button", { name: "Switch on Team helper" }).click();
  await expect(row.getByRole("button", { name: "Switch off Team helper" })).toBeVisible();

  // A person links their QQ account.
  const personContext = await browser.newContext();
  const person = await personContext.newPage();
  const email = uniqueEmail("channels-person");
  await signUp(person, { email });
  await person.goto("/settings#channels");
  const channels = person.getByRole("region", { name: "Channels" });
  await channels.getByRole("button", { name: "Get a code" }).click();
  const code = ((await channels.getByText(/^\/bind [A-Z0-9]{4}-/).textContent()) ?? "").replace("/bind ", "").trim();
  expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

  const body = JSON.stringify({ op: 0, id: "C2C_MESSAGE_CREATE:e2e", t: "C2C_MESSAGE_CREATE", d: { id: "ROBOT1.0_e2e", content: `/bind ${code}`, timestamp: new Date().toISOString(), author: { user_openid: "E2E_OPENID" } } });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const forged = await fetch(callbackUrl, { method: "POST", headers: { "content-type": "application/json", "x-signature-ed25519": signQqCallback("not the secret", timestamp, body), "x-signature-timestamp": timestamp }, body });
  expect(forged.status).toBe(401);
  const signed = await fetch(callbackUrl, { method: "POST", headers: { "content-type": "application/json", "x-signature-ed25519": signQqCallback(SECRET, timestamp, body), "x-signature-timestamp": timestamp }, body });
  expect(await signed.json()).toEqual({ op: 12, d: 0 });

  await expect(async () => {
    await channels.getByRole("button", { name: "Refresh" }).click();
    await expect(channels.getByTestId("channel-binding")).toContainText("QQ · Team helper", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(channels.getByTestId("channel-binding")).toContainText("E2E_OPENID");

  // The admin sees the event, the refused callback, the binding and why the reply did not go out.
  await expect(async () => {
    await admin.reload();
    await expect(row).toContainText("1 bound", { timeout: 1_000 });
    await expect(row).toContainText("1 refused callback", { timeout: 1_000 });
    await expect(row).toContainText("Last error", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });

  await channels.getByRole("button", { name: "Unlink QQ Team helper" }).click();
  await person.getByRole("dialog").getByRole("button", { name: "Unlink" }).click();
  await expect(channels.getByText("No linked chat accounts.")).toBeVisible();

  await row.getByRole("button", { name: "Delete Team helper" }).click();
  await admin.getByRole("dialog").getByRole("button", { name: "Delete bot" }).click();
  await expect(admin.getByText("No bots yet.")).toBeVisible();
  await personContext.close();
  await adminContext.close();
});

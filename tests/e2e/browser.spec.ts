import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

// A scripted model fills in and submits the fixture site's order form through the browser worker
// that `npm start` runs beside the app; the person approves the submit in the chat. A new chat
// allows no site: the person first lets the browser open the shop and allows that site for the
// chat ("Always allow <site> in this chat"), after which typing there needs no approval.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const siteUrl = process.env.E2E_BROWSER_SITE_URL!;
const siteHost = new URL(siteUrl).host;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

async function submissions(): Promise<Record<string, string>[]> {
  return ((await (await fetch(`${siteUrl}/_control/submissions`)).json()) as { submissions: Record<string, string>[] }).submissions;
}

async function startChat(page: Page, name: string) {
  await fetch(`${siteUrl}/_control/reset`, { method: "POST" });
  await signUp(page, { email: uniqueEmail(name) });
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
}

// Element numbers on tests/fixtures/browser-site/pages/form.html: 4 is "Your name", 6 the plan
// select, 9 the "Submit order" button (tests/integration/browser-worker.test.ts checks them).
function fillAndSubmit(finalText: string) {
  return [
    { toolCalls: [{ name: "browser_navigate", arguments: { url: `${siteUrl}/form.html`, sensitive: true } }] },
    { toolCalls: [{ name: "browser_type", arguments: { agent_id: 4, text: "Ada Lovelace" } }, { name: "browser_type", arguments: { agent_id: 6, text: "Team" } }] },
    { toolCalls: [{ name: "browser_click", arguments: { agent_id: 9, sensitive: true } }] },
    { text: finalText },
  ];
}

test.describe.configure({ mode: "serial" });

/** The card for opening the shop: it names the site and the whole address; the person allows the site for this chat. */
async function allowTheShop(page: Page) {
  const card = page.locator('[data-testid="approval-card"][data-status="pending"]');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText(`Open ${siteHost}`);
  await expect(card).toContainText(`Opens ${siteUrl}/form.html`);
  await expect(card.getByTestId("approval-destination")).toContainText(siteUrl);
  const allowSite = card.getByRole("checkbox", { name: `Always allow ${siteHost} in this chat` });
  // Reachable and usable from the keyboard.
  await allowSite.focus();
  await page.keyboard.press("Space");
  await expect(allowSite).toBeChecked();
  await card.getByRole("button", { name: "Approve" }).click();
}

test("the agent fills in a web form and submits it once the user approves", async ({ page }) => {
  await startChat(page, "browser-approve");
  await scriptModel(fillAndSubmit("Your Team order is in."));
  await page.getByLabel("Message").fill("Order the Team plan for Ada Lovelace on the shop");
  await page.getByRole("button", { name: "Send" }).click();
  await allowTheShop(page);

  const card = page.locator('[data-testid="approval-card"][data-status="pending"]');
  await expect(card).toContainText('Click "Submit order"', { timeout: 30_000 });
  await expect(card).toContainText("browser_click");
  await expect(card).toContainText("Order form");
  // Typing ran without asking; nothing was sent yet.
  await expect(page.getByTestId("tool-card").filter({ hasText: "browser_type" })).toHaveCount(2);
  expect(await submissions()).toEqual([]);

  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("Your Team order is in.", { timeout: 30_000 });
  expect(await submissions()).toEqual([{ name: "Ada Lovelace", email: "", plan: "Team", notes: "" }]);
  // While live, the paused message's card and the continuation's card may both be on screen for a
  // moment; the finished one carries the result, and after a reload there is exactly one.
  await expect(page.locator('[data-testid="tool-card"][data-state="done"]').filter({ hasText: "browser_click" })).toContainText('Navigated to "Order received"');
  await page.reload();
  const clickCards = page.getByTestId("tool-card").filter({ hasText: "browser_click" });
  await expect(clickCards).toHaveCount(1);
  await expect(clickCards).toContainText('Navigated to "Order received"');
});

test("nothing is submitted when the user denies (on a phone-sized screen)", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await startChat(page, "browser-deny");
  await scriptModel(fillAndSubmit("unused"));
  await page.getByLabel("Message").fill("Order the Team plan for Ada Lovelace on the shop");
  await page.getByRole("button", { name: "Send" }).click();
  const siteCard = page.locator('[data-testid="approval-card"][data-status="pending"]');
  await expect(siteCard).toBeVisible({ timeout: 30_000 });
  // The card, the address and both options fit the width: nothing in the card scrolls sideways.
  await expect(siteCard.getByRole("checkbox", { name: `Always allow ${siteHost} in this chat` })).toBeVisible();
  const box = (await siteCard.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(375);
  expect(await siteCard.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await allowTheShop(page);
  const card = page.locator('[data-testid="approval-card"][data-status="pending"]');
  await expect(card).toContainText('Click "Submit order"', { timeout: 30_000 });

  await scriptModel([{ text: "Understood, I did not submit the order." }]);
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("Understood, I did not submit the order.", { timeout: 30_000 });
  expect(await submissions()).toEqual([]);
});

import { expect, test } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

// Multi-agent in a real browser against the built app: the main agent asks for a debate, the three
// workers run as jobs (the embedded runner) and stream into their rows of the card; a worker's
// trace opens as a chat of its own.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
}

/** A worker's answer, streamed slowly enough to be watched (plain text: the reply contract's fallback). */
const workerReply = (text: string) => ({ text, chunks: 24, chunkDelayMs: 120 });

test("ask for a debate, watch three worker cards stream, open a worker's trace @database", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("agents") });
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  const question = "Redis or SQLite for 100k web sessions on one machine?";
  await scriptModel([
    { toolCalls: [{ name: "debate", arguments: { question, agents: ["coder", "skeptic", "optimizer"] } }] },
    workerReply("Redis keeps hot session data in memory with O(1) reads, and TTLs expire old sessions for free."),
    workerReply("SQLite avoids a second service; Redis adds a single point of failure unless you run a replica."),
    workerReply("Measured: Redis reads about 0.1 ms, SQLite about 1 ms with a warm page cache; both are fine here."),
    { text: "All three weighed in: SQLite is enough for one machine; choose Redis if you need replicas." },
  ]);
  await page.getByLabel("Message").fill("Debate Redis vs SQLite for our sessions");
  await page.getByRole("button", { name: "Send" }).click();

  const card = page.getByTestId("agents-card");
  await expect(card).toBeVisible();
  await expect(card).toContainText(question);
  const rows = card.getByTestId("worker-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute("data-agent", "coder");
  await expect(rows.nth(1)).toHaveAttribute("data-agent", "skeptic");
  await expect(rows.nth(2)).toHaveAttribute("data-agent", "optimizer");
  // The workers' text arrives while they work, before they are done.
  await expect(card.getByTestId("worker-live").first()).toBeVisible();
  await expect(card.locator('[data-testid="worker-row"][data-status="running"]').first()).toBeVisible();
  // Then each row holds its worker's answer.
  await expect(card.locator('[data-testid="worker-row"][data-status="completed"]')).toHaveCount(3, { timeout: 30_000 });
  await expect(card.getByTestId("worker-summary")).toHaveCount(3);
  await expect(card).toContainText("single point of failure");
  await expect(page.getByTestId("assistant-message").last()).toContainText("All three weighed in");

  // After a reload the card is rebuilt from the stored result.
  await page.reload();
  await expect(page.getByTestId("agents-card").locator('[data-testid="worker-row"][data-status="completed"]')).toHaveCount(3);

  // A worker's trace is a chat of its own: its task as the first message, under the parent chat.
  const parentUrl = page.url();
  await page.getByTestId("agents-card").getByRole("link", { name: "Trace of skeptic" }).click();
  await page.waitForURL((url) => /\/chat\/[0-9a-f-]{36}$/.test(url.pathname) && url.href !== parentUrl);
  await expect(page.getByText("Worker (sub-agent) of")).toBeVisible();
  await expect(page.getByTestId("user-message").first()).toContainText(question);
  await expect(page.getByTestId("assistant-message").first()).toContainText(/Redis|SQLite/);
  await page.getByRole("link", { name: "the chat that delegated it" }).click();
  await expect(page).toHaveURL(parentUrl);
});

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

// A scripted model asks to write a file; the person decides in the approval card.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const dataDirectory = process.env.E2E_DATA_DIR!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
}

async function startChat(page: Page, name: string): Promise<string> {
  await signUp(page, { email: uniqueEmail(name) });
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  const me = await page.evaluate(async () => (await fetch("/api/me")).json());
  return path.join(dataDirectory, "workspaces", me.id);
}

async function askForWrite(page: Page, file: string) {
  await scriptModel([{ toolCalls: [{ name: "write_file", arguments: { path: file, content: "# Plan\n\n- ship it\n" } }] }, { text: `I wrote ${file} for you.` }]);
  await page.getByLabel("Message").fill(`Please write ${file}`);
  await page.getByRole("button", { name: "Send" }).click();
  const card = page.getByTestId("approval-card");
  await expect(card).toBeVisible();
  await expect(card).toContainText(file);
  await expect(card).toContainText("+- ship it");
  return card;
}

const exists = (file: string) => stat(file).then(() => true, () => false);

test("Approve: the file is written and the reply streams", async ({ page }) => {
  const workspace = await startChat(page, "approve");
  const card = await askForWrite(page, "plan.md");
  expect(await exists(path.join(workspace, "plan.md"))).toBe(false);
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("I wrote plan.md for you.");
  expect(await readFile(path.join(workspace, "plan.md"), "utf8")).toBe("# Plan\n\n- ship it\n");
  await page.reload();
  await expect(page.getByTestId("approval-card")).toContainText(/approved/i);
  await expect(page.getByTestId("approval-card").getByRole("button", { name: "Approve" })).toHaveCount(0);
});

test("Deny: nothing is written and the model is told", async ({ page }) => {
  const workspace = await startChat(page, "deny");
  const card = await askForWrite(page, "nope.md");
  await scriptModel([{ text: "Understood, I did not write it." }]);
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("Understood, I did not write it.");
  expect(await exists(path.join(workspace, "nope.md"))).toBe(false);
  const requests = ((await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: { body: { messages: { role: string; content: string }[] } }[] }).requests;
  expect(requests.at(-1)!.body.messages.find((message) => message.role === "tool")!.content).toMatch(/Denied by the user/);
});

test("an approval click is one request: the decision's own answer streams the continuation", async ({ page }) => {
  await startChat(page, "one-request");
  // The reply after the approval streams slowly, so it is on screen while that stream is still open.
  await scriptModel([
    { toolCalls: [{ name: "write_file", arguments: { path: "once.md", content: "once\n" } }] },
    { text: "I wrote once.md for you, in one go.", chunks: 8, chunkDelayMs: 250 },
  ]);
  await page.getByLabel("Message").fill("Please write once.md");
  await page.getByRole("button", { name: "Send" }).click();
  const card = page.getByTestId("approval-card");
  await expect(card).toHaveAttribute("data-status", "pending");

  // The browser's network log from the click on: every request to the API, in order, except what
  // the end of the paused run causes (the sidebar's list and the chat's title are refreshed when a
  // run's stream ends, which can come just after its card is shown): they do not follow a run.
  const requests: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    const afterPausedRun = (request.method() === "GET" && url.pathname === "/api/sessions") || /^\/api\/sessions\/[^/]+\/title$/.test(url.pathname);
    if (url.pathname.startsWith("/api/") && !afterPausedRun) requests.push(`${request.method()} ${url.pathname}`);
  });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("I wrote");
  const untilShown = [...requests];
  expect(untilShown).toHaveLength(1);
  expect(untilShown[0]).toMatch(/^POST \/api\/sessions\/[0-9a-f-]{36}\/approvals\/[0-9a-f-]{36}$/);

  // To the end of the run (and the history read after it) the run is never followed a second time.
  await expect(page.getByTestId("assistant-message").last()).toContainText("I wrote once.md for you, in one go.");
  await expect(card).toHaveAttribute("data-status", "approved");
  await expect(page.getByLabel("Message")).toBeFocused();
  expect(requests.filter((request) => request.includes("/approvals/"))).toHaveLength(1);
  expect(requests.filter((request) => request.includes("/api/chat"))).toEqual([]);
});

test("a refused decision is taken back with the server's reason; one already taken elsewhere is said so", async ({ page }) => {
  await startChat(page, "refused");
  const sessionId = page.url().split("/chat/")[1]!;
  const card = await askForWrite(page, "twice.md");
  const approvalId = await page.evaluate(async (id) => {
    const body = (await (await fetch(`/api/sessions/${id}`)).json()) as { messages: { parts: { type: string; data?: { approvalId: string; status: string } }[] }[] };
    return body.messages.flatMap((message) => message.parts).find((part) => part.type === "data-approval" && part.data?.status === "pending")!.data!.approvalId;
  }, sessionId);

  // Refused: the server rejects the decision (its body is changed on the way to one it does not
  // accept); the card goes back to waiting, and the server's message is shown.
  await page.route(`**/api/sessions/${sessionId}/approvals/${approvalId}`, (route) => route.continue({ postData: JSON.stringify({ decision: "maybe" }) }), { times: 1 });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("alert").filter({ hasText: 'decision must be "approve" or "deny".' })).toBeVisible();
  await expect(card).toHaveAttribute("data-status", "pending");
  await expect(card.getByRole("button", { name: "Approve" })).toBeEnabled();

  // Decided in another tab meanwhile: the click changes nothing, and the page says so.
  const decided = await page.evaluate(
    async ({ id, approval }) => {
      const response = await fetch(`/api/sessions/${id}/approvals/${approval}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
      await response.text();
      return response.status;
    },
    { id: sessionId, approval: approvalId },
  );
  expect(decided).toBe(200);
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: "This action was already approved; nothing changed." })).toBeVisible();
  await expect(page.getByTestId("assistant-message").last()).toContainText("I wrote twice.md for you.");
  await expect(page.getByTestId("approval-card")).toHaveAttribute("data-status", "approved");
});

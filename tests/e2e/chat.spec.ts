import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

// The model is the fake LLM started by tests/e2e/run.ts; each test scripts its replies.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

async function modelRequests(): Promise<{ body: { messages: { role: string; content: unknown }[] } }[]> {
  return ((await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: never[] }).requests;
}

async function send(page: Page, text: string) {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test.describe.configure({ mode: "serial" });

test("@database a message streams in, a tool call shows as a card, and a reload shows the same history", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("chat") });
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  const sessionUrl = page.url();

  const answer = "Hello from the fake model. It streams word by word so you can watch it arrive.";
  await scriptModel([{ text: answer, chunks: 12, chunkDelayMs: 120 }]);
  await send(page, "Hi there");
  await expect(page.getByTestId("user-message").last()).toContainText("Hi there");
  const assistant = page.getByTestId("assistant-message").last();
  // Streaming: part of the answer is visible before all of it is.
  await expect(assistant).toContainText("Hello from the fake");
  expect((await assistant.textContent())!.includes("watch it arrive")).toBe(false);
  await expect(assistant).toContainText("watch it arrive.");
  await expect(page.getByTestId("model-label")).toContainText("gpt-4o-mini");

  await scriptModel([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "The answer is **42**." }]);
  await send(page, "What is 6 times 7?");
  const card = page.getByTestId("tool-card").last();
  await expect(card).toContainText("calculator");
  await expect(card).toHaveAttribute("data-state", "done");
  await expect(card).toContainText("6 * 7 = 42");
  await expect(page.getByTestId("assistant-message").last()).toContainText("The answer is 42.");
  // Tool-call JSON never shows up as text in the conversation.
  await expect(page.getByText('"expression"')).toHaveCount(0);

  // The server built the second model request from the database, with the tool result paired.
  const requests = await modelRequests();
  expect(requests[1]!.body.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool"]);

  await page.goto(sessionUrl);
  await expect(page.getByTestId("user-message")).toHaveCount(2);
  await expect(page.getByTestId("assistant-message").first()).toContainText("watch it arrive.");
  await expect(page.getByTestId("tool-card")).toHaveCount(1);
  await expect(page.getByTestId("tool-card")).toContainText("6 * 7 = 42");
  await expect(page.getByTestId("assistant-message").last()).toContainText("The answer is 42.");
});

test("Stop ends a long answer and the session records that it was stopped", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("stop") });
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  const sessionId = page.url().split("/").pop()!;

  await scriptModel([{ text: "This is a very long answer ".repeat(40), chunks: 80, chunkDelayMs: 150 }]);
  await send(page, "Tell me everything");
  await expect(page.getByTestId("assistant-message").last()).toContainText("This is a very long answer");
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();

  await expect
    .poll(async () => (await page.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).json(), sessionId)).session.statusReason)
    .toBe("stopped by the user");
  await page.reload();
  await expect(page.getByText("Stopped by the user.")).toBeVisible();
});

test("another user's session is not found", async ({ browser }) => {
  const owner = await browser.newContext();
  const ownerPage = await owner.newPage();
  await signUp(ownerPage, { email: uniqueEmail("owner") });
  const created = await ownerPage.evaluate(async () => (await fetch("/api/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json());
  const intruder = await browser.newContext();
  const intruderPage = await intruder.newPage();
  await signUp(intruderPage, { email: uniqueEmail("intruder") });
  const status = await intruderPage.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).status, created.session.id);
  expect(status).toBe(404);
  const page = await intruderPage.goto(`/chat/${created.session.id}`);
  expect(page?.status()).toBe(404);
  await owner.close();
  await intruder.close();
});

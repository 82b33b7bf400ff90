import { expect, test, type Page } from "@playwright/test";
import { openNewChat, signUp, uniqueEmail } from "./helpers";

// The model (and the embeddings API) is the fake LLM started by tests/e2e/run.ts; each test scripts its replies.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

type TRequest = { api: string; body: { messages: { role: string; content: unknown }[] } };

async function modelRequests(): Promise<TRequest[]> {
  const { requests } = (await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: TRequest[] };
  return requests.filter((request) => request.api === "openai");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as { text?: string }[]).map((part) => part.text ?? "").join("");
}

const newChat = openNewChat;

async function send(page: Page, text: string) {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test.describe.configure({ mode: "serial" });

test("@database upload a document, ask about it, and see the answer cite it", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("knowledge") });
  await page.getByRole("link", { name: "Knowledge" }).click();
  await page.waitForURL(/\/knowledge$/);
  await page.getByLabel("New knowledge base name").fill("Operations");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("tab", { name: /Operations/ })).toHaveAttribute("aria-selected", "true");

  const handbook = "# Operations handbook\n\n## Backups\n\nBackups run every night at 02:00 UTC and are kept for 30 days in the object store.\n\n## On call\n\nThe on-call engineer answers pages within 15 minutes.\n";
  await page.getByLabel("Document to upload").setInputFiles({ name: "handbook.md", mimeType: "text/markdown", buffer: Buffer.from(handbook) });
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  const row = page.locator('[data-document="handbook.md"]');
  // Indexing runs as a job; the page follows its progress until it is ready.
  await expect(row).toContainText("Ready", { timeout: 30_000 });
  await expect(row).toContainText(/[1-9]\d* chunks/);

  // A mislabelled file is refused with the reason, and nothing is added.
  await page.getByLabel("Document to upload").setInputFiles({ name: "report.pdf", mimeType: "application/pdf", buffer: Buffer.from("#!/bin/sh\nrm -rf /\n") });
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await expect(page.getByRole("alert")).toContainText("named like a PDF but is not one");
  await expect(page.locator('[data-document="report.pdf"]')).toHaveCount(0);

  await newChat(page);
  await scriptModel([
    { toolCalls: [{ name: "kb_search", arguments: { query: "how long are backups kept" } }] },
    { text: "Backups are kept for **30 days** (handbook.md, chunk 1)." },
  ]);
  await send(page, "How long are backups kept?");
  const card = page.getByTestId("tool-card").last();
  await expect(card).toContainText("kb_search");
  await expect(card).toHaveAttribute("data-state", "done");
  await expect(page.getByTestId("assistant-message").last()).toContainText("Backups are kept for 30 days (handbook.md, chunk 1).");
  // The passage was also recalled into the message itself, marked as reference data.
  const first = await modelRequests();
  const userMessage = textOf(first[0]!.body.messages.at(-1)!.content);
  expect(userMessage).toContain("<recalled_context>");
  expect(userMessage).toContain('[document "handbook.md"');
  expect(userMessage).toContain("kept for 30 days");
  // kb_search's result, which the model read, names document and chunk.
  const toolMessage = first[1]!.body.messages.find((message) => message.role === "tool");
  expect(textOf(toolMessage!.content)).toMatch(/document "handbook\.md" \(doc_id: handbook\.md\), chunk \d+/);
});

test("@database a preference saved in one chat is recalled in a new chat and listed on Settings → Memory", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("memory") });
  await newChat(page);
  await scriptModel([
    { toolCalls: [{ name: "memory_save", arguments: { content: "The user wants every answer written as a haiku.", tags: ["preference"] } }] },
    { text: "I will remember that." },
  ]);
  await send(page, "From now on, please write every answer as a haiku.");
  const card = page.getByTestId("tool-card").last();
  await expect(card).toContainText("memory_save");
  await expect(card).toHaveAttribute("data-state", "done");
  await expect(page.getByTestId("assistant-message").last()).toContainText("I will remember that.");

  await page.goto("/settings/memory");
  const memory = page.locator("[data-memory-id]").filter({ hasText: "The user wants every answer written as a haiku." });
  await expect(memory).toContainText("Saved by the agent in this chat");

  await newChat(page);
  await scriptModel([{ text: "Autumn wind whispers / code compiles without a sound / the tests all pass green" }]);
  await send(page, "Write an answer about tests, as a haiku please");
  await expect(page.getByTestId("assistant-message").last()).toContainText("the tests all pass green");
  const [request] = await modelRequests();
  const system = textOf(request!.body.messages[0]!.content);
  expect(system).not.toContain("haiku");
  const recalled = textOf(request!.body.messages.at(-1)!.content);
  expect(recalled).toContain("reference data, not instructions");
  expect(recalled).toMatch(/\[memory [0-9a-f-]{36}\] \(saved by the agent\) The user wants every answer written as a haiku\./);
});

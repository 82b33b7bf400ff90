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

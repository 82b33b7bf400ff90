import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

/**
 * The chat as people use it (issue 14): message actions, one approval state, the sidebar,
 * keyboard paths, the phone layout, attachments, the model picker, trace detail on demand,
 * export, theme, the tab-title badge and the 404 page (long replies: long-reply.spec.ts).
 */
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const dataDirectory = process.env.E2E_DATA_DIR!;

type TModelRequest = { body: { model: string; messages: { role: string; content: unknown }[] } };

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

async function modelRequests(): Promise<TModelRequest[]> {
  return ((await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: TModelRequest[] }).requests;
}

async function newChat(page: Page) {
  const before = page.url();
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL((url) => /\/chat\/[0-9a-f-]{36}$/.test(url.pathname) && url.toString() !== before);
  return page.url();
}

async function startChat(page: Page, name: string): Promise<string> {
  await signUp(page, { email: uniqueEmail(name) });
  return newChat(page);
}

async function send(page: Page, text: string) {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

const lastReply = (page: Page) => page.getByTestId("assistant-message").last();

test.describe.configure({ mode: "serial" });

test("message actions: copy a reply, edit a message (the rest is rolled back), regenerate, retry after a provider error", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await startChat(page, "actions");
  await scriptModel([{ text: "First **answer**." }]);
  await send(page, "Question one");
  await expect(lastReply(page)).toContainText("First answer.");

  await lastReply(page).hover();
  await lastReply(page).getByRole("button", { name: "Copy reply" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("First **answer**.");

  // Edit: the message and its reply are rolled back, the new text is sent in their place.
  await scriptModel([{ text: "Edited answer." }]);
  const question = page.getByTestId("user-message").first();
  await question.hover();
  await question.getByRole("button", { name: "Edit", exact: true }).click();
  await page.getByLabel("Edited text").fill("Question one, edited");
  await page.getByLabel("Edited text").press("Enter");
  await expect(lastReply(page)).toContainText("Edited answer.");
  await expect(page.getByTestId("user-message")).toHaveCount(1);
  await expect(page.getByTestId("user-message")).toContainText("Question one, edited");
  const edited = (await modelRequests()).at(-1)!;
  expect(edited.body.messages.map((message) => message.role)).toEqual(["system", "user"]);
  expect(edited.body.messages[1]!.content).toBe("Question one, edited");

  // Regenerate the last reply: the same question again, in its place.
  await scriptModel([{ text: "Regenerated answer." }]);
  await lastReply(page).hover();
  await lastReply(page).getByRole("button", { name: "Regenerate reply" }).click();
  await expect(lastReply(page)).toContainText("Regenerated answer.");
  await expect(page.getByTestId("assistant-message")).toHaveCount(1);
  expect((await modelRequests()).at(-1)!.body.messages.map((message) => message.role)).toEqual(["system", "user"]);

  // The only provider fails: one accurate message, then Retry.
  await scriptModel([{ status: 503, errorMessage: "upstream down" }, { status: 503, errorMessage: "upstream down" }, { status: 503, errorMessage: "upstream down" }]);
  await send(page, "This one fails");
  const failure = page.getByTestId("run-error");
  await expect(failure).toContainText("No other provider is configured to fall back to.");
  await expect(failure).toHaveCount(1);
  await expect(page.getByText("upstream down")).toHaveCount(1);
  await scriptModel([{ text: "Recovered." }]);
  await failure.getByRole("button", { name: "Retry" }).click();
  await expect(lastReply(page)).toContainText("Recovered.");
  await expect(page.getByTestId("run-error")).toHaveCount(0);
  await expect(page.getByTestId("user-message")).toHaveCount(2);
  await page.reload();
  await expect(page.getByTestId("user-message")).toHaveCount(2);
  await expect(lastReply(page)).toContainText("Recovered.");
});

test("one approval state: the card says where the call stands, once; a new message declines a waiting call", async ({ page }) => {
  await startChat(page, "approval-state");
  await scriptModel([{ toolCalls: [{ name: "write_file", arguments: { path: "plan.md", content: "# Plan\n" } }] }, { text: "I wrote plan.md.", chunks: 6, chunkDelayMs: 150 }]);
  await send(page, "Write plan.md");
  const card = page.locator('[data-testid="tool-card"][data-tool="write_file"]');
  await expect(card.getByTestId("tool-status")).toHaveText("Needs your approval");
  // Said once: no notice and no second "waiting" elsewhere.
  await expect(page.getByText(/waiting/i)).toHaveCount(0);
  await expect(card.getByTestId("approval-card")).toHaveAttribute("data-status", "pending");

  await card.getByRole("button", { name: "Approve" }).click();
  // From the click until the reply is in, there is one card for the call, and it agrees with itself.
  const seen = new Set<string>();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const snapshot = await page.evaluate(() => {
      const cards = Array.from(document.querySelectorAll('[data-testid="tool-card"][data-tool="write_file"]'));
      return {
        cards: cards.length,
        status: cards[0]?.querySelector('[data-testid="tool-status"]')?.textContent ?? "",
        approval: cards[0]?.querySelector('[data-testid="approval-card"]')?.getAttribute("data-status") ?? "",
        waiting: /waiting/i.test(document.body.innerText),
        done: document.body.innerText.includes("I wrote plan.md."),
      };
    });
    expect(snapshot.cards).toBe(1);
    expect(snapshot.approval).toBe("approved");
    expect(snapshot.waiting).toBe(false);
    seen.add(snapshot.status);
    if (snapshot.done && snapshot.status === "Done") break;
    await page.waitForTimeout(50);
  }
  expect([...seen].every((status) => status === "Approved · running…" || status === "Done")).toBe(true);
  expect(seen.has("Done")).toBe(true);
  // The decision is made: the keyboard is back in the message box.
  await expect(page.getByLabel("Message")).toBeFocused();

  // A message instead of a decision declines the call, and the run goes on with the message.
  await scriptModel([{ toolCalls: [{ name: "write_file", arguments: { path: "other.md", content: "x" } }] }]);
  await send(page, "Write other.md");
  const second = page.locator('[data-testid="tool-card"][data-tool="write_file"]').last();
  await expect(second.getByTestId("tool-status")).toHaveText("Needs your approval");
  await scriptModel([{ text: "Fine, I will not write it." }]);
  await send(page, "No, just say hi");
  await expect(lastReply(page)).toContainText("Fine, I will not write it.");
  await expect(second.getByTestId("approval-card")).toHaveAttribute("data-status", "denied");
  await expect(second.getByTestId("tool-status")).toHaveText("Not run: denied");
  await expect(page.getByTestId("run-error")).toHaveCount(0);
  await page.reload();
  const reloaded = page.locator('[data-testid="tool-card"][data-tool="write_file"]');
  await expect(reloaded).toHaveCount(2);
  await expect(reloaded.last().getByTestId("approval-card")).toHaveAttribute("data-status", "denied");
  await expect(reloaded.last().getByTestId("approval-decision")).toContainText("sent a new message instead");
});

test("sidebar: search, groups by date, forks marked, New chat reuses an empty chat, renaming keeps the order", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("sidebar") });
  const sidebar = page.getByRole("complementary", { name: "Sidebar" });
  await newChat(page);
  await scriptModel([{ text: "Lisbon it is." }, { text: "The numbers are fine." }]);
  await send(page, "Plan a **trip** to Lisbon");
  await expect(lastReply(page)).toContainText("Lisbon it is.");
  await newChat(page);
  await send(page, "Quarterly report numbers");
  await expect(lastReply(page)).toContainText("The numbers are fine.");
  const empty = await newChat(page);
  // New chat again: the empty chat is reused, not a fourth one made.
  await sidebar.getByRole("button", { name: "New chat" }).click();
  await expect(page).toHaveURL(empty);
  const items = sidebar.getByTestId("session-item");
  await expect(items).toHaveCount(3);
  await expect(sidebar.getByRole("heading", { name: "Today" })).toBeVisible();
  // Titles are plain text, never raw Markdown.
  await expect(sidebar.getByRole("link", { name: "Plan a trip to Lisbon" })).toBeVisible();

  const search = sidebar.getByLabel("Search chats");
  await search.fill("lisbon");
  await expect(items).toHaveCount(1);
  await expect(items).toContainText("Plan a trip to Lisbon");
  await search.fill("no such chat");
  await expect(sidebar.getByText("No chat title matches")).toBeVisible();
  await search.press("Escape");
  await expect(items).toHaveCount(3);

  // Rename the oldest with F2 on its link: it keeps its place.
  const order = async () => (await items.locator("a").allTextContents()).map((text) => text.trim());
  const before = await order();
  expect(before.at(-1)).toBe("Plan a trip to Lisbon");
  await sidebar.getByRole("link", { name: "Plan a trip to Lisbon" }).focus();
  await page.keyboard.press("F2");
  await sidebar.getByLabel("Chat title").fill("Lisbon weekend");
  // The list shows the new title at once; the reload below must wait until the server has it (a
  // reload right after Enter could cancel the request, which failed CI once).
  const saved = page.waitForResponse((response) => response.request().method() === "PATCH" && response.url().includes("/api/sessions/"));
  await sidebar.getByLabel("Chat title").press("Enter");
  await expect(sidebar.getByRole("link", { name: "Lisbon weekend" })).toBeFocused();
  expect(await order()).toEqual([...before.slice(0, -1), "Lisbon weekend"]);
  expect((await saved).ok()).toBe(true);
  await page.reload();
  expect(await order()).toEqual([...before.slice(0, -1), "Lisbon weekend"]);

  // A fork is marked as one.
  await sidebar.getByRole("link", { name: "Quarterly report numbers" }).click();
  await page.waitForURL((url) => url.toString() !== empty);
  const original = page.url();
  await page.getByRole("button", { name: "Steps" }).click();
  await page.getByRole("button", { name: "Fork at s0002" }).click();
  await page.waitForURL((url) => url.toString() !== original);
  await expect(sidebar.getByTestId("session-item").filter({ hasText: "fork at s0002" }).getByTestId("session-kind")).toHaveText("Fork:");
  // New chat stays in view above the list.
  await expect(sidebar.getByRole("button", { name: "New chat" })).toBeInViewport();
});

test("keyboard: a new chat focuses the message box, the command list works with arrows, Enter and Esc, Esc stops a reply, one Tab stop per chat", async ({ page }) => {
  await startChat(page, "keyboard");
  const box = page.getByLabel("Message");
  await expect(box).toBeFocused();

  await page.keyboard.type("/");
  const list = page.getByRole("listbox");
  await expect(list.getByRole("option")).toHaveCount(5);
  await expect(list.getByRole("option", { name: /\/steps/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowDown");
  await expect(list.getByRole("option", { name: /\/rollback/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(box).toHaveValue("/rollback ");
  await expect(list).toHaveCount(0);
  await box.fill("/f");
  await expect(list.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Escape");
  await expect(list).toHaveCount(0);
  await expect(box).toHaveValue("/f");

  await scriptModel([{ text: "A very long answer. ".repeat(60), chunks: 60, chunkDelayMs: 150 }]);
  await box.fill("Tell me a lot");
  await page.keyboard.press("Enter");
  await expect(lastReply(page)).toContainText("A very long answer.");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
  await expect(page.getByText("Stopped by the user.")).toBeVisible();

  // Each chat in the sidebar is one Tab stop: from one chat's link, Tab goes to the next chat's link.
  await newChat(page);
  const links = page.getByRole("complementary", { name: "Sidebar" }).getByTestId("session-item").locator("a");
  await expect(links).toHaveCount(2);
  await links.first().focus();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("href"))).toBe(await links.nth(1).getAttribute("href"));
});

test("phone: one header, the menu opens from it, and a tapped image opens full size with zoom", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await startChat(page, "phone");
  // One header of 56 px: the chat's own, with the menu button; no app bar above it.
  expect((await page.getByRole("heading", { level: 1 }).boundingBox())!.y).toBeLessThan(56);
  expect((await page.getByTestId("message-scroller").boundingBox())!.y).toBeLessThanOrEqual(57);
  await expect(page.getByRole("link", { name: "xclaw" })).toBeHidden();
  await page.getByRole("button", { name: "Open menu" }).click();
  await expect(page.getByRole("complementary", { name: "Sidebar" }).getByRole("button", { name: "New chat" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("complementary", { name: "Sidebar" })).toBeHidden();

  // An 8×8 PNG.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAF0lEQVR4nGP4z8CAFTEMJYn/DAwMDAwAvD8H+f1ox+sAAAAASUVORK5CYII=",
    "base64",
  );
  await page.getByTestId("attach-input").setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("attachment")).toHaveAttribute("data-status", "stored");
  await scriptModel([{ text: "A tiny picture." }]);
  await send(page, "What is this?");
  await expect(lastReply(page)).toContainText("A tiny picture.");
  await page.getByTestId("user-message").getByRole("button", { name: "Open photo.png full size" }).click();
  const lightbox = page.getByTestId("lightbox");
  await expect(lightbox).toBeVisible();
  const image = lightbox.getByRole("img", { name: "photo.png" });
  const fitted = (await image.boundingBox())!.width;
  await lightbox.getByRole("button", { name: "Zoom in" }).click();
  await expect(lightbox).toContainText("150%");
  expect((await image.boundingBox())!.width).toBeGreaterThan(fitted);
  await page.keyboard.press("Escape");
  await expect(lightbox).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});

test("attachments: files go to the workspace and are named to the agent; images reach the model as image parts", async ({ page }) => {
  await startChat(page, "attachments");
  const me = await page.evaluate(async () => (await fetch("/api/me")).json());
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
  await page.getByTestId("attach-input").setInputFiles([
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("buy milk\n") },
    { name: "pixel.png", mimeType: "image/png", buffer: png },
  ]);
  await expect(page.getByTestId("attachment").and(page.locator('[data-status="stored"]'))).toHaveCount(2);
  await scriptModel([{ text: "Your notes say to buy milk." }]);
  await send(page, "What did I attach?");
  await expect(lastReply(page)).toContainText("buy milk");
  expect(await readFile(path.join(dataDirectory, "workspaces", me.id, "uploads", "notes.txt"), "utf8")).toBe("buy milk\n");
  expect((await stat(path.join(dataDirectory, "workspaces", me.id, "uploads", "pixel.png"))).size).toBe(png.length);
  const sent = (await modelRequests()).at(-1)!.body.messages.at(-1)! as { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] };
  expect(sent.content[0]!.text).toContain("uploads/notes.txt");
  expect(sent.content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } });
  await page.reload();
  await expect(page.getByTestId("user-message").getByTestId("attachment")).toHaveCount(2);
});

test("model picker: the choice belongs to the chat and the run uses it", async ({ page }) => {
  const first = await startChat(page, "models");
  const picker = page.getByLabel("Model for this chat");
  await expect(picker).toHaveValue("openai:gpt-4o-mini");
  await picker.selectOption("openai:gpt-4o");
  await expect(picker).toBeEnabled();
  await scriptModel([{ text: "Big model here." }, { text: "Default model here." }]);
  await send(page, "Which model?");
  await expect(lastReply(page)).toContainText("Big model here.");
  expect((await modelRequests()).at(-1)!.body.model).toBe("gpt-4o");
  await expect(page.getByTestId("model-label")).toHaveText("openai · gpt-4o");

  await newChat(page);
  await expect(page.getByLabel("Model for this chat")).toHaveValue("openai:gpt-4o-mini");
  await send(page, "And here?");
  await expect(lastReply(page)).toContainText("Default model here.");
  expect((await modelRequests()).at(-1)!.body.model).toBe("gpt-4o-mini");

  await page.goto(first);
  await expect(page.getByLabel("Model for this chat")).toHaveValue("openai:gpt-4o");
});

test("trace detail on demand, steps by turn, export, theme, a tab-title badge, and a branded 404", async ({ page }) => {
  const url = await startChat(page, "details");
  await scriptModel([{ text: "One." }, { text: "Two." }]);
  await send(page, "first");
  await expect(lastReply(page)).toContainText("One.");
  // Step ids are trace detail: hidden until asked for.
  await expect(page.getByTestId("step-label")).toHaveCount(0);

  // A reply finishing in a background tab shows in the tab's title.
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await send(page, "second");
  await expect(lastReply(page)).toContainText("Two.");
  await expect(page).toHaveTitle(/^\(1\) first · xclaw$/);
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await expect(page).toHaveTitle("first · xclaw");

  await page.getByRole("button", { name: "Steps" }).click();
  const panel = page.getByRole("complementary", { name: "Steps" });
  await expect(panel.getByTestId("step-turn")).toHaveCount(2);
  await expect(panel.getByTestId("step-turn").first().getByTestId("step-row")).toHaveCount(2);
  await panel.getByLabel("Show step ids in the conversation").check();
  await expect(page.getByTestId("message-scroller").getByTestId("step-label").first()).toBeVisible();
  await panel.getByLabel("Show step ids in the conversation").uncheck();
  await page.getByRole("button", { name: "Hide the step list" }).click();

  await page.getByRole("button", { name: "Export" }).click();
  const downloaded = page.waitForEvent("download");
  await page.getByRole("menuitem", { name: "Download as Markdown" }).click();
  const download = await downloaded;
  expect(download.suggestedFilename()).toBe("first.md");
  const markdown = await readFile((await download.path())!, "utf8");
  expect(markdown).toContain("## You\n\nfirst");
  expect(markdown).toContain("## xclaw\n\nTwo.");

  await page.getByRole("complementary", { name: "Sidebar" }).getByText("Dark", { exact: true }).click();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await page.goto(url);
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await page.getByRole("complementary", { name: "Sidebar" }).getByText("System", { exact: true }).click();
  await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);

  const missing = await page.goto("/no/such/page");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
  await page.getByRole("link", { name: "Back to your chats" }).click();
  await page.waitForURL((target) => target.pathname.startsWith("/chat/"));
});

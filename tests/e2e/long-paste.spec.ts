import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

/**
 * Issue 31: putting a long text into the message box froze the page for seconds before Send was
 * pressed. This measures the page's long tasks (Long Tasks API, anything over 50 ms) while 50 KB
 * and 200 KB of log lines go into the box — by Playwright's `fill` (what an input method or a
 * dictation tool does: one text insertion) and by a real clipboard paste (Ctrl+V) — while more is
 * typed at its end, and while it is sent, and prints every figure against the target (no
 * task over 200 ms). Timings are reported, not asserted (the house rule); what is asserted is that
 * every character arrives: in the box, at the model, and on the page. All three go into one chat,
 * so the later ones are typed with the earlier long messages on the page. Last, a text over the
 * server's limit is refused and comes back into the box whole.
 * Tracing is off: its DOM snapshots run inside the page and would be measured too.
 */
test.use({ trace: "off", screenshot: "off", permissions: ["clipboard-read", "clipboard-write"] });

const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const REPLY = "Read all of it.";
const TYPED = "\nWhat went wrong here?";

type TWindow = { longTasks: number[] };
type TFigures = { count: number; maxMs: number; totalMs: number };

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

/** The text of the last user message the model was sent. */
async function lastUserTextSentToModel(): Promise<string> {
  const { requests } = (await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: { body: { messages?: { role: string; content: unknown }[] } }[] };
  const user = requests.at(-1)?.body.messages?.findLast((message) => message.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : "")).join("");
  return "";
}

async function takeLongTasks(page: Page): Promise<TFigures> {
  const tasks = await page.evaluate(() => {
    const state = window as unknown as TWindow;
    const taken = [...state.longTasks];
    state.longTasks.length = 0;
    return taken;
  });
  return { count: tasks.length, maxMs: Math.max(0, ...tasks), totalMs: tasks.reduce((sum, task) => sum + task, 0) };
}

/** Log lines with stack traces, `bytes` long: what people paste. */
function pastedLog(bytes: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 1; length < bytes; index++) {
    const line =
      index % 5 === 0
        ? `    at com.example.orders.OrderService.handle(OrderService.java:${index}) [request ${index * 7919}]`
        : `2026-12-02T07:35:${String(index % 60).padStart(2, "0")}.${index} ERROR worker-${index % 8} order ${index} failed: connection reset by peer after ${index * 3} ms`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, bytes);
}

async function newChat(page: Page) {
  const before = page.url();
  await page.getByRole("button", { name: "New chat" }).first().click();
  await page.waitForURL((url) => /\/chat\/[0-9a-f-]{36}$/.test(url.pathname) && url.toString() !== before);
}

/** Waits (polling cheaply, no layout) until the box holds `length` characters. */
async function waitForBoxLength(page: Page, length: number) {
  await page.waitForFunction((expected) => (document.querySelector('textarea[name="message"]') as HTMLTextAreaElement | null)?.value.length === expected, length, {
    polling: 250,
    timeout: 300_000,
  });
}

async function measure(page: Page, text: string, how: "fill" | "paste") {
  await scriptModel([{ text: REPLY }]);
  const box = page.getByLabel("Message");
  await box.focus();
  await page.waitForTimeout(500);
  await takeLongTasks(page);

  const pasteStarted = Date.now();
  if (how === "fill") {
    await box.fill(text);
  } else {
    await page.evaluate((value) => navigator.clipboard.writeText(value), text);
    await takeLongTasks(page);
    await page.keyboard.press("ControlOrMeta+V");
  }
  await waitForBoxLength(page, text.length);
  const pasteMs = Date.now() - pasteStarted;
  await page.waitForTimeout(1_000);
  const paste = await takeLongTasks(page);

  // Typing at the end of it, a key at a time as a person does.
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type(TYPED.slice(1), { delay: 40 });
  await waitForBoxLength(page, text.length + TYPED.length);
  await page.waitForTimeout(1_000);
  const typing = await takeLongTasks(page);
  expect(await box.inputValue()).toBe(text + TYPED);

  await page.keyboard.press("Enter");
  await page.waitForFunction(
    (reply) => [...document.querySelectorAll('[data-testid="assistant-message"]')].at(-1)?.textContent?.includes(reply) ?? false,
    REPLY,
    { polling: 250, timeout: 120_000 },
  );
  await page.waitForTimeout(2_000);
  const send = await takeLongTasks(page);

  // Nothing lost: the box is empty, the model got every character, and the page shows them all.
  await expect(box).toHaveValue("");
  expect(await lastUserTextSentToModel()).toBe(text + TYPED);
  expect(await page.getByTestId("user-message").last().getByTestId("user-message-text").evaluate((element) => element.textContent)).toBe(text + TYPED);
  return { how, bytes: text.length, pasteMs, paste, typing, send };
}

test("a 50 KB and a 200 KB text go into the message box, get typed after and sent whole, and the long tasks are measured and printed", async ({ page }) => {
  test.setTimeout(900_000);
  await page.addInitScript(() => {
    const tasks: number[] = [];
    (window as unknown as TWindow).longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(Math.round(entry.duration));
    }).observe({ type: "longtask", buffered: true });
  });
  await signUp(page, { email: uniqueEmail("long-paste") });
  // One chat: the later texts go in below the earlier ones, as in a conversation about a log.
  await newChat(page);
  const runs = [];
  for (const [bytes, how] of [
    [50_000, "fill"],
    [200_000, "fill"],
    [200_000, "paste"],
  ] as const) {
    const figures = await measure(page, pastedLog(bytes), how);
    console.log(`long-paste long tasks: ${JSON.stringify(figures)}`);
    runs.push(figures);
  }
  for (const run of runs) {
    const worst = Math.max(run.paste.maxMs, run.typing.maxMs, run.send.maxMs);
    console.log(`long-paste: ${run.bytes} bytes by ${run.how} — longest task ${worst} ms, target no task over 200 ms ${worst <= 200 ? "met" : "NOT met"}`);
  }
  test.info().annotations.push({ type: "long tasks", description: JSON.stringify(runs) });
  expect(runs).toHaveLength(3);

  // Over the server's limit (300,000 characters): refused with the reason, and the text comes back
  // into the box whole, ready to be shortened.
  const tooLong = pastedLog(310_000).trimEnd();
  const box = page.getByLabel("Message");
  await box.fill(tooLong);
  await waitForBoxLength(page, tooLong.length);
  await box.press("Enter");
  await expect(page.getByText("The message is longer than 300,000 characters.")).toBeVisible({ timeout: 30_000 });
  await waitForBoxLength(page, tooLong.length);
  expect(await box.inputValue()).toBe(tooLong);
});

import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

/**
 * Issue 14: a reply that arrives in one burst (a reload mid-reply replays the run from its start)
 * froze the page for seconds. This measures the page's long tasks (Long Tasks API, anything over
 * 50 ms) while a 50 KB Markdown reply arrives in one burst, and again while the finished chat is
 * reloaded, three times in three chats (other processes share the machine's cores), prints every
 * figure, and says whether the median run meets the target (no task over 200 ms).
 * Playwright's tracing and its DOM-snapshotting waits run inside the page and would be measured
 * too, so this file turns tracing off and waits with a cheap poll.
 */
test.use({ trace: "off", screenshot: "off" });

const fakeUrl = process.env.E2E_FAKE_LLM_URL!;
const END = "That is the end of the long reply.";

type TWindow = { longTasks: number[] };

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  const response = await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
  expect(response.ok).toBe(true);
}

/** Waits until the last reply's text contains `text`, reading textContent (no layout) every 250 ms. */
async function waitForReply(page: Page, text: string) {
  await page.waitForFunction(
    (expected) => {
      const replies = document.querySelectorAll('[data-testid="assistant-message"]');
      return replies[replies.length - 1]?.textContent?.includes(expected) ?? false;
    },
    text,
    { polling: 250, timeout: 60_000 },
  );
}

async function takeLongTasks(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const state = window as unknown as TWindow;
    const tasks = [...state.longTasks];
    state.longTasks.length = 0;
    return tasks;
  });
}

/** About 50 KB of Markdown: headings, paragraphs, lists, a table and code in several languages. */
function longReply(): string {
  const sections: string[] = [];
  for (let index = 1; sections.join("\n").length < 50_000; index++) {
    sections.push(
      `## Part ${index}: what to check`,
      `This part explains **step ${index}** in detail, with \`inline code\`, a [link](https://example.com/${index}) and some *emphasis*. It goes on for a while so that the paragraph wraps over several lines on a desktop screen and more on a phone.`,
      `- first point of part ${index}\n- second point, with **bold** text\n- third point\n  - a nested point`,
      `| key | value | note |\n| --- | --- | --- |\n| a${index} | ${index * 3} | fine |\n| b${index} | ${index * 7} | also fine |`,
      "```ts\n" + `export function part${index}(input: number): number {\n  const doubled = input * 2;\n  return doubled + ${index};\n}\n` + "```",
      "```python\n" + `def part_${index}(value):\n    return [item * ${index} for item in range(value)]\n` + "```",
    );
  }
  return sections.join("\n\n") + "\n\nThat is the end of the long reply.";
}

const ATTEMPTS = 3;

// The target (no long task over 200 ms) is reported, not asserted: timings on a shared CI machine
// are not a test (the house rule); the figures go to the closing note and ARCHITECTURE.md.
test("a 50 KB reply renders live and after a reload, and its long tasks are measured and printed", async ({ page }) => {
  test.setTimeout(240_000);
  await page.addInitScript(() => {
    const tasks: number[] = [];
    (window as unknown as TWindow).longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(Math.round(entry.duration));
    }).observe({ type: "longtask", buffered: true });
  });
  await signUp(page, { email: uniqueEmail("long-reply") });
  const text = longReply();
  const describe = (tasks: number[]) => ({ count: tasks.length, maxMs: Math.max(0, ...tasks), totalMs: tasks.reduce((sum, task) => sum + task, 0) });
  const attempts: { live: ReturnType<typeof describe>; reload: ReturnType<typeof describe> }[] = [];
  // Other processes share this machine's two cores: each figure is taken three times, in three chats.
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = page.url();
    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.waitForURL((url) => /\/chat\/[0-9a-f-]{36}$/.test(url.pathname) && url.toString() !== before);
    // In one burst: 400 deltas with no delay between them.
    await scriptModel([{ text, chunks: 400 }]);
    await page.getByLabel("Message").fill("Write a long reply");
    await page.waitForTimeout(500);
    await takeLongTasks(page);
    await page.getByLabel("Message").press("Enter");
    await waitForReply(page, END);
    // Highlighting goes on after the text is in: wait until the page is quiet.
    await page.waitForTimeout(3_000);
    const live = await takeLongTasks(page);
    await expect(page.getByTestId("assistant-message").last().getByRole("heading", { name: "Part 1: what to check" })).toBeVisible();

    await page.reload();
    await waitForReply(page, END);
    await page.waitForTimeout(3_000);
    attempts.push({ live: describe(live), reload: describe(await takeLongTasks(page)) });
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const figures = {
    replyBytes: Buffer.byteLength(text),
    attempts,
    medianOfMaxMs: { live: median(attempts.map((entry) => entry.live.maxMs)), reload: median(attempts.map((entry) => entry.reload.maxMs)) },
  };
  console.log(`long-reply long tasks: ${JSON.stringify(figures)}`);
  test.info().annotations.push({ type: "long tasks", description: JSON.stringify(figures) });
  console.log(`long-reply: target no long task over 200 ms — live ${figures.medianOfMaxMs.live < 200 ? "met" : "NOT met"}, reload ${figures.medianOfMaxMs.reload < 200 ? "met" : "NOT met"} (median of ${ATTEMPTS})`);
  expect(attempts).toHaveLength(ATTEMPTS);
});

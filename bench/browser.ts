/**
 * The browser worker: how long a session's browser context takes to create, how long a
 * navigate + distilled read takes through the worker's HTTP API (against plain Playwright doing
 * goto + page.content() in the same run, as the baseline), and how much distillation shrinks the
 * fixture pages (characters of the rendered HTML vs. what browser_content returns).
 *
 *   npx tsx bench/browser.ts [iterations]        (npm run bench:browser; needs Chromium)
 */
import { randomBytes } from "node:crypto";
import { chromium as playwright } from "playwright-core";
import { BrowserWorkerClient } from "../lib/browser/worker-client";
import { UrlGuard } from "../lib/net/url-guard";
import { startBrowserSite } from "../tests/fixtures/browser-site/server";
import { BrowserSession } from "../workers/browser/browser-session";
import { CHROMIUM_ARGS, findChromium, noChromiumMessage } from "../lib/browser/chromium";
import { startBrowserWorker } from "../workers/browser/worker";
import { percentile } from "./support";

const iterations = Number(process.argv[2] ?? 20);
const executablePath = findChromium();
if (!executablePath) {
  process.stderr.write(`${noChromiumMessage("the browser benchmark")}\n`);
  process.exit(1);
}

const PAGES = ["/noisy.html", "/spa.html", "/form.html", "/calendar.html", "/combobox.html", "/cookie-banner.html", "/long.html"];
const site = await startBrowserSite();
const secret = randomBytes(24).toString("hex");
const settings = { navigationTimeoutMs: 20_000, networkIdleMs: 5_000, contentPageCharacters: 8_000 };
const worker = await startBrowserWorker({ secret, executablePath, allowedPrivateHosts: [site.host], maxContexts: 50, idleMs: 60 * 60_000, ...settings, log: { debug() {}, info() {}, warn() {}, error() {} } });
const client = new BrowserWorkerClient({ url: worker.url, secret });
const baselineBrowser = await playwright.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });

const ms = (values: number[]) => `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms`;
const pad = (text: string, width: number) => text.padEnd(width);

try {
  // 1. Context + page: what the first browser call of a chat session pays before it can navigate.
  const contextTimes: number[] = [];
  const bareContextTimes: number[] = [];
  const guard = new UrlGuard({ allowedPrivateHosts: [site.host] });
  for (let index = 0; index < iterations; index++) {
    let started = performance.now();
    const session = await BrowserSession.open(baselineBrowser, { userId: "bench", sessionId: `bench-${index}`, settings: { guard, ...settings } });
    contextTimes.push(performance.now() - started);
    await session.close();
    started = performance.now();
    const context = await baselineBrowser.newContext();
    await context.newPage();
    bareContextTimes.push(performance.now() - started);
    await context.close();
  }

  // 2. Navigate + distilled content through the worker, against goto + content() in plain Playwright.
  const baselineContext = await baselineBrowser.newContext();
  const baselinePage = await baselineContext.newPage();
  const rows: { page: string; worker: number[]; baseline: number[]; raw: number; text: number; html: number }[] = [];
  for (const path of PAGES) {
    const row = { page: path, worker: [] as number[], baseline: [] as number[], raw: 0, text: 0, html: 0 };
    for (let index = 0; index < iterations; index++) {
      let started = performance.now();
      await baselinePage.goto(`${site.url}${path}`, { waitUntil: "networkidle" });
      await baselinePage.content();
      row.baseline.push(performance.now() - started);

      started = performance.now();
      const act = (action: Parameters<BrowserWorkerClient["act"]>[0]["action"]) => client.act({ userId: "bench", sessionId: "reader", action, egress: { mode: "ask", allowedOrigins: [site.url] } });
      await act({ type: "navigate", url: `${site.url}${path}` });
      const text = await act({ type: "content", mode: "text", offset: 0 });
      row.worker.push(performance.now() - started);
      row.raw = text.stats!.rawCharacters;
      row.text = text.stats!.distilledCharacters;
    }
    const html = await client.act({ userId: "bench", sessionId: "reader", action: { type: "content", mode: "html", offset: 0 } });
    row.html = html.stats!.distilledCharacters;
    rows.push(row);
  }
  await baselineContext.close();

  const out: string[] = [];
  out.push(`browser worker benchmark (${iterations} iterations, Chromium ${baselineBrowser.version()})`, "");
  out.push("context + page for a new session");
  out.push(`  worker session (context, egress proxy, request guard, page): ${ms(contextTimes)}`);
  out.push(`  bare Playwright newContext + newPage (baseline):           ${ms(bareContextTimes)}`);
  out.push("");
  out.push("navigate + read, per page (worker: navigate + browser_content text over HTTP; baseline: goto networkidle + content())");
  for (const row of rows) {
    const ratio = percentile(row.worker, 50) / percentile(row.baseline, 50);
    out.push(`  ${pad(row.page, 20)} worker ${ms(row.worker)} | baseline ${ms(row.baseline)} | ×${ratio.toFixed(2)} at p50`);
  }
  out.push("");
  out.push("distillation: characters of the rendered HTML → browser_content (tokens ≈ characters / 4)");
  let raw = 0;
  let text = 0;
  let html = 0;
  for (const row of rows) {
    raw += row.raw;
    text += row.text;
    html += row.html;
    const cut = (kept: number) => `${String(kept).padStart(6)} (−${(100 * (1 - kept / row.raw)).toFixed(1)}%)`;
    out.push(`  ${pad(row.page, 20)} raw ${String(row.raw).padStart(7)} → text ${cut(row.text)}, html ${cut(row.html)}`);
  }
  const markup = rows.filter((row) => row.page !== "/long.html");
  const sum = (pick: (row: (typeof rows)[number]) => number) => markup.reduce((total, row) => total + pick(row), 0);
  const markupRaw = sum((row) => row.raw);
  out.push(
    `  ${pad("all but long.html", 20)} raw ${String(markupRaw).padStart(7)} → text ${sum((row) => row.text)} (−${(100 * (1 - sum((row) => row.text) / markupRaw)).toFixed(1)}%), html ${sum((row) => row.html)} (−${(100 * (1 - sum((row) => row.html) / markupRaw)).toFixed(1)}%)   (long.html is plain text: nothing to remove)`,
  );
  out.push(`  ${pad("all pages", 20)} raw ${String(raw).padStart(7)} → text ${text} (−${(100 * (1 - text / raw)).toFixed(1)}%), html ${html} (−${(100 * (1 - html / raw)).toFixed(1)}%)`);
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  await baselineBrowser.close();
  await worker.close(1_000);
  await site.close();
}

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createBrowserTools } from "@/lib/browser/browser-tools";
import { BrowserWorkerClient } from "@/lib/browser/worker-client";
import type { TTool, TToolContext, TToolResult } from "@/lib/tools/registry";
import { findChromium } from "@/lib/browser/chromium";
import { startBrowserWorker, type TBrowserWorker } from "@/workers/browser/worker";
import { startBrowserSite, type TBrowserSite } from "../fixtures/browser-site/server";

// Slow by nature (real Chromium), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * An approval binds the action to where it sends data. The browser tools (their approval preview
 * and their execution) drive the real worker and Chromium, without a chat run around them: the
 * preview is what the approval card shows, and executing with `sensitive: true` is what runs after
 * Approve. Two fixture sites, both allow-listed, so that a re-pointed form could really reach the
 * other one; the session allows only the first (egress), and the card names the other when an
 * action would send data there.
 */
const chromium = findChromium();
if (!chromium) throw new Error("These tests need Chromium (apt-get install chromium, or CHROMIUM_PATH).");

let site: TBrowserSite;
let other: TBrowserSite;
let worker: TBrowserWorker;
let tools: Map<string, TTool>;
let workerSecret: string;

beforeAll(async () => {
  site = await startBrowserSite();
  other = await startBrowserSite();
  workerSecret = randomBytes(24).toString("hex");
  worker = await startBrowserWorker({
    secret: workerSecret,
    executablePath: chromium,
    allowedPrivateHosts: [site.host, other.host],
    maxContexts: 10,
    idleMs: 10 * 60_000,
    navigationTimeoutMs: 10_000,
    networkIdleMs: 1_000,
    contentPageCharacters: 8_000,
  });
  tools = new Map(createBrowserTools(new BrowserWorkerClient({ url: worker.url, secret: workerSecret }), { egress: "ask", allowedPrivateHosts: [site.host, other.host] }).map((tool) => [tool.name, tool]));
}, 60_000);
afterAll(async () => {
  await worker?.close(1_000);
  await site?.close();
  await other?.close();
});
beforeEach(() => {
  site.reset();
  other.reset();
});

let sessionCounter = 0;
function newContext(): TToolContext {
  return {
    userId: "user-a",
    sessionId: `binding-${++sessionCounter}-${randomBytes(3).toString("hex")}`,
    allowedOrigins: [site.url],
    signal: new AbortController().signal,
    stepId: "",
    progress: () => {},
  };
}

async function run(name: string, input: unknown, context: TToolContext): Promise<{ text: string; isError: boolean }> {
  const result = (await tools.get(name)!.execute(input, context)) as TToolResult;
  return { text: result.content.map((part) => (part.type === "text" ? part.text : "")).join(""), isError: result.isError ?? false };
}

const preview = (input: unknown, context: TToolContext) => tools.get("browser_click")!.preview!(input, context);

async function openPayment(context: TToolContext) {
  const opened = await run("browser_navigate", { url: `${site.url}/repoint.html?other=${encodeURIComponent(other.url)}` }, context);
  expect(opened.text).toContain('Opened "Payment"');
}

describe("an approved browser action is bound to where it sends data", () => {
  it("shows the form's destination (origin and method) on the approval card, and submits there after Approve", async () => {
    const context = newContext();
    await run("browser_navigate", { url: `${site.url}/form.html` }, context);
    await run("browser_type", { selector: "#name", text: "Grace Hopper" }, context);
    const card = await preview({ agent_id: 9, sensitive: true }, context);
    expect(card.title).toBe(`Click "Submit order" on ${site.host} (submits the form to ${site.url} with POST)`);
    expect(card.detail).toContain(`It submits the form to ${site.url} with POST.`);
    const submitted = await run("browser_click", { agent_id: 9, sensitive: true }, context);
    expect(submitted).toMatchObject({ isError: false, text: expect.stringContaining('Navigated to "Order received"') });
    expect(site.submissions).toEqual([expect.objectContaining({ name: "Grace Hopper" })]);
  });

  it("stops the approved click when the page re-points the form during it", async () => {
    const context = newContext();
    await openPayment(context);
    const card = await preview({ selector: "#pay", sensitive: true }, context);
    expect(card.title).toBe(`Click "Pay now" on ${site.host} (submits the form to ${site.url} with POST)`);
    const clicked = await run("browser_click", { selector: "#pay", sensitive: true }, context);
    expect(clicked.isError).toBe(true);
    expect(clicked.text).toContain(`but nothing was sent: the page tried to send it to POST ${other.url} instead of POST ${site.url}, which the user approved`);
    expect(other.submissions).toEqual([]);
    expect(site.submissions).toEqual([]);
  });

  it("stops a form.submit() to another site when the card named no destination", async () => {
    const context = newContext();
    await openPayment(context);
    const card = await preview({ selector: "#pay-by-script", sensitive: true }, context);
    expect(card.title).toBe(`Click "Pay by script" on ${site.host}`);
    expect(card.detail).toContain("It names no form or link: where data goes is up to the page's scripts, and a form may then go only to this site.");
    const clicked = await run("browser_click", { selector: "#pay-by-script", sensitive: true }, context);
    expect(clicked.isError).toBe(true);
    expect(clicked.text).toContain(`but nothing was sent: the page tried to send a form to POST ${other.url}, but the approval named no destination, which allows only this site (${site.url})`);
    expect(other.submissions).toEqual([]);
    expect(site.submissions).toEqual([]);
  });

  it("refuses before acting when the destination changed after the card was shown", async () => {
    const context = newContext();
    await openPayment(context);
    await preview({ selector: "#pay", sensitive: true }, context);
    // An ordinary click (no approval needed) that re-points the form.
    expect((await run("browser_click", { selector: "#switch" }, context)).isError).toBe(false);
    const clicked = await run("browser_click", { selector: "#pay", sensitive: true }, context);
    expect(clicked.isError).toBe(true);
    expect(clicked.text).toMatch(
      new RegExp(
        `^Not done: the page changed since the user approved this\\. The approval was for a click that submits the form to ${site.url.replace(/\./g, "\\.")} with POST; \\[\\d+ button "Pay now"\\] now submits the form to ${other.url.replace(/\./g, "\\.")} with POST\\.`,
      ),
    );
    expect(other.submissions).toEqual([]);
    expect(site.submissions).toEqual([]);
  });
});

describe("the approval card names the site data would go to", () => {
  it("shows the whole address and its site for a navigation to a site the chat does not allow", async () => {
    const context = newContext();
    const address = `${other.url}/collect?secret=sk-test-123&next=%2Fhome#token=abc`;
    const riskOf = tools.get("browser_navigate")!.riskOf!;
    expect(riskOf({ url: address, sensitive: true }, { allowedOrigins: [] })).toBe("external");
    // A site the chat does not allow asks even unmarked; an allowed one does not.
    expect(riskOf({ url: address }, { allowedOrigins: [] })).toBe("external");
    expect(riskOf({ url: address }, { allowedOrigins: [other.url] })).toBe("read");
    const card = await tools.get("browser_navigate")!.preview!({ url: address, sensitive: true }, context);
    expect(card).toEqual({
      title: `Open ${other.host}`,
      detail: `Opens ${address}\nEverything in this address, including anything after "?" or "#", goes to ${other.url} (its server and its pages' scripts), a site not yet allowed in this chat.`,
      origin: other.url,
    });
    // An allowed site needs no "always allow".
    const allowed = await tools.get("browser_navigate")!.preview!({ url: `${site.url}/form.html`, sensitive: true }, context);
    expect(allowed).toEqual({ title: `Open ${site.host}`, detail: `Opens ${site.url}/form.html\n${site.url} is allowed in this chat.` });
    expect(other.requests).toEqual([]);
  });

  it("names the other site for a click that opens it, and only that click may go there after Approve", async () => {
    const context = newContext();
    await run("browser_navigate", { url: `${site.url}/exfil-get-form.html?to=${encodeURIComponent(other.url)}` }, context);
    await run("browser_type", { selector: "#q", text: "sk-test-123" }, context);
    const refused = await run("browser_click", { selector: "#go" }, context);
    expect(refused.isError).toBe(true);
    const card = await preview({ selector: "#go", sensitive: true }, context);
    expect(card.title).toBe(`Click "Go" on ${site.host} (submits the form to ${other.url} with GET)`);
    expect(card.origin).toBe(other.url);
    expect(other.requests).toEqual([]);
    const submitted = await run("browser_click", { selector: "#go", sensitive: true }, context);
    expect(submitted.text).toContain('Navigated to "Collected"');
    expect(other.collected).toEqual([{ method: "GET", path: "/collect", query: "?q=sk-test-123", body: "" }]);
  });

  it("with browser.egress: allow, opens any site without asking and offers no site on the card", async () => {
    const open = new Map(createBrowserTools(new BrowserWorkerClient({ url: worker.url, secret: workerSecret }), { egress: "allow" }).map((tool) => [tool.name, tool]));
    const context = { ...newContext(), allowedOrigins: [] };
    const result = (await open.get("browser_navigate")!.execute({ url: `${other.url}/collect?q=1` }, context)) as TToolResult;
    expect(result.isError ?? false).toBe(false);
    const card = await open.get("browser_navigate")!.preview!({ url: `${other.url}/landing.html`, sensitive: true }, context);
    expect(card.origin).toBeUndefined();
    expect(other.collected).toEqual([{ method: "GET", path: "/collect", query: "?q=1", body: "" }]);
  });
});

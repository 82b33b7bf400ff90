import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";
import { findChromium } from "@/lib/browser/chromium";
import { startBrowserWorker, type TBrowserWorker } from "@/workers/browser/worker";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { startBrowserSite, type TBrowserSite } from "../fixtures/browser-site/server";
import { clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { useBrowserAllowList } from "../support/browser-config";
import { createUser } from "../support/http";
import { readUiStream, type TChunk } from "../support/ui-stream";

// Slow by nature (real Chromium and whole chat runs), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * The browser tools in real chat runs: the fake model drives the real worker (Chromium) against
 * the fixture site, and the approval policy decides, as in production. A new chat allows no site:
 * each test that is about something else first opens the fixture site with approval and "always
 * allow this site" (egress has its own tests in browser-egress*.test.ts).
 */
const chromium = findChromium();
if (!chromium) throw new Error("These tests need Chromium (apt-get install chromium, or CHROMIUM_PATH).");

let fake: TFakeLlm;
let site: TBrowserSite;
let worker: TBrowserWorker;

beforeAll(async () => {
  fake = await startFakeLlm();
  site = await startBrowserSite();
  useBrowserAllowList([site.host]);
  const secret = randomBytes(24).toString("hex");
  worker = await startBrowserWorker({
    secret,
    executablePath: chromium,
    allowedPrivateHosts: [site.host],
    maxContexts: 10,
    idleMs: 10 * 60_000,
    navigationTimeoutMs: 10_000,
    networkIdleMs: 1_000,
    contentPageCharacters: 8_000,
  });
  process.env.BROWSER_WORKER_URL = worker.url;
  process.env.BROWSER_WORKER_SECRET = secret;
  resetEnvironment();
}, 60_000);
afterAll(async () => {
  delete process.env.BROWSER_WORKER_URL;
  delete process.env.BROWSER_WORKER_SECRET;
  delete process.env.XCLAW_CONFIG;
  resetEnvironment();
  await worker?.close(1_000);
  await site?.close();
  await fake?.close();
});
beforeEach(() => {
  useFakeProvider(fake);
  site.reset();
});
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

type TApprovalData = { approvalId: string; toolName: string; risk: string; status: string; preview: { title: string; detail?: string; origin?: string } };

function approvalOf(chunks: TChunk[]): TApprovalData | undefined {
  return chunks.find((chunk) => chunk.type === "data-approval")?.data as TApprovalData | undefined;
}

function outputs(chunks: TChunk[]): { text: string; isError: boolean }[] {
  return chunks.filter((chunk) => chunk.type === "tool-output-available").map((chunk) => chunk.output as { text: string; isError: boolean });
}

/** Opens the fixture site in this chat the way a person allows it: Approve with "always allow this site". */
async function allowFixtureSite(cookie: string, sessionId: string) {
  fake.script([{ toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/landing.html`, sensitive: true } }] }, { text: "Opened." }]);
  const { chunks } = await sendChat(cookie, sessionId, "Open the shop");
  await waitForRun(sessionId);
  const approval = approvalOf(chunks)!;
  expect(approval).toMatchObject({ toolName: "browser_navigate", preview: { origin: site.url } });
  await readUiStream(await decideResponse(cookie, sessionId, approval.approvalId, { decision: "approve", alwaysAllowSite: true }));
  await waitForRun(sessionId);
  expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).allowedOrigins).toEqual([site.url]);
  // The tests below count model requests and read the fixture's logs from their own start.
  fake.reset();
  site.reset();
}

const toolMessages = (index: number) => fake.requests[index]!.body.messages.filter((message: { role: string }) => message.role === "tool") as { content: string }[];

describe("browser tools in a chat", () => {
  it("are offered to the model when a worker is configured", () => {
    const names = defaultToolRegistry().names();
    for (const name of ["browser_navigate", "browser_content", "browser_click", "browser_type", "browser_key", "browser_scroll", "browser_screenshot", "browser_screenshot_annotated"]) {
      expect(names).toContain(name);
    }
  });

  it("fills a form without asking, asks before submitting it, and submits after Approve", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    await allowFixtureSite(cookie, sessionId);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/form.html` } }] },
      { toolCalls: [{ name: "browser_content", arguments: {} }] },
      { toolCalls: [{ name: "browser_type", arguments: { agent_id: 4, text: "Ada Lovelace" } }, { name: "browser_type", arguments: { agent_id: "6", text: "Pro" } }] },
      { toolCalls: [{ name: "browser_click", arguments: { agent_id: 9, sensitive: true } }] },
    ]);
    const { chunks } = await sendChat(cookie, sessionId, "Order the Pro plan for Ada Lovelace");
    await waitForRun(sessionId);
    const done = outputs(chunks);
    expect(done.map((output) => output.isError)).toEqual([false, false, false, false]);
    expect(done[1]!.text).toContain('[9 button "Submit order" (needs approval)]');
    expect(done[3]!.text).toContain('its value is now "Pro"');

    const approval = approvalOf(chunks);
    expect(approval).toMatchObject({ toolName: "browser_click", risk: "external", status: "pending", preview: { title: `Click "Submit order" on ${site.host} (submits the form to ${site.url} with POST)` } });
    expect(approval!.preview.detail).toContain(`button "Submit order" — it is labelled "Submit order", on "Order form" — ${site.url}/form.html`);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("PAUSED");
    expect(site.submissions).toEqual([]);

    fake.script([{ text: "Your order is in." }]);
    const continued = await readUiStream(await decideResponse(cookie, sessionId, approval!.approvalId, { decision: "approve" }));
    expect(continued.text).toBe("Your order is in.");
    expect(outputs(continued.chunks)[0]!.text).toContain('Navigated to "Order received"');
    expect(site.submissions).toEqual([{ name: "Ada Lovelace", email: "", plan: "Pro", notes: "" }]);
  });

  it("sends nothing when the user denies the submit", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    await allowFixtureSite(cookie, sessionId);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/form.html` } }] },
      { toolCalls: [{ name: "browser_click", arguments: { selector: "button[type=submit]" } }] },
    ]);
    const { chunks } = await sendChat(cookie, sessionId, "Submit the form");
    await waitForRun(sessionId);
    // A selector that names a submit button is enough to ask.
    const approval = approvalOf(chunks)!;
    expect(approval).toMatchObject({ toolName: "browser_click", risk: "external" });
    fake.script([{ text: "I did not submit it." }]);
    await readUiStream(await decideResponse(cookie, sessionId, approval.approvalId, { decision: "deny" }));
    await waitForRun(sessionId);
    expect(site.submissions).toEqual([]);
    expect(toolMessages(2).at(-1)!.content).toMatch(/^ERROR: Denied by the user/);
  });

  it("refuses a submit the model did not mark, even when it claims it is harmless, and asks once marked", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    await allowFixtureSite(cookie, sessionId);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/form.html` } }] },
      // A prompt-injected model clicking "just a button" by id, without the flag.
      { toolCalls: [{ name: "browser_click", arguments: { agent_id: 9, sensitive: false } }] },
      { toolCalls: [{ name: "browser_type", arguments: { agent_id: 4, text: "Mallory" } }] },
      { toolCalls: [{ name: "browser_key", arguments: { key: "Enter" } }] },
      { toolCalls: [{ name: "browser_click", arguments: { agent_id: 9, sensitive: true } }] },
    ]);
    const { chunks } = await sendChat(cookie, sessionId, "Submit the form");
    await waitForRun(sessionId);
    const [, unmarked, , enter] = outputs(chunks);
    expect(enter).toMatchObject({ isError: true, text: expect.stringContaining("needs the user's approval, because it submits the form") });
    expect(unmarked).toMatchObject({ isError: true });
    expect(unmarked!.text).toBe(
      'Not done: clicking [9 button "Submit order"] needs the user\'s approval, because it is labelled "Submit order". To ask the user, call browser_click again with the same arguments and "sensitive": true.',
    );
    expect(approvalOf(chunks)).toMatchObject({ toolName: "browser_click", status: "pending" });
    expect(site.submissions).toEqual([]);
  });

  it("runs ordinary clicks without asking, and hands screenshots to the model as images", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    await allowFixtureSite(cookie, sessionId);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/calendar.html` } }] },
      { toolCalls: [{ name: "browser_click", arguments: { agent_id: 14 } }] },
      { toolCalls: [{ name: "browser_screenshot_annotated", arguments: {} }] },
      { text: "You picked the 14th." },
    ]);
    const { chunks, text } = await sendChat(cookie, sessionId, "Pick July 14");
    await waitForRun(sessionId);
    expect(text).toBe("You picked the 14th.");
    expect(approvalOf(chunks)).toBeUndefined();
    expect(outputs(chunks)[1]!.text).toBe('Clicked [14 gridcell "July 14, 2026"].');
    const lastRequest = fake.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    const image = lastRequest.at(-1)!;
    expect(image.role).toBe("user");
    expect(image.content).toEqual([
      { type: "text", text: "Image output of browser_screenshot_annotated:" },
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } },
    ]);
  });

  it("tells the model plainly that a CAPTCHA needs a person, and asks before acting on that page", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    await allowFixtureSite(cookie, sessionId);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/captcha.html` } }] },
      { toolCalls: [{ name: "browser_click", arguments: { agent_id: 1, sensitive: true } }] },
    ]);
    const { chunks } = await sendChat(cookie, sessionId, "Open the protected page");
    await waitForRun(sessionId);
    expect(outputs(chunks)[0]!.text).toMatch(/^\[CAPTCHA\] This page shows a reCAPTCHA\. A person has to solve it: stop here and tell the user/);
    expect(toolMessages(1).at(-1)!.content).toMatch(/^\[CAPTCHA\]/);
    const approval = approvalOf(chunks)!;
    expect(approval.preview.detail).toContain("The page shows a reCAPTCHA.");
    expect(site.requests.filter((request) => request.startsWith("/landing.html"))).toEqual([]);
  });

  it("keeps each chat's browser to itself", async () => {
    const { cookie } = await createUser();
    const first = await newSession(cookie);
    const second = await newSession(cookie);
    await allowFixtureSite(cookie, first);
    await allowFixtureSite(cookie, second);
    fake.script([{ toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/cookie/set?value=first-chat` } }] }, { text: "Done." }]);
    await sendChat(cookie, first, "set a cookie");
    await waitForRun(first);
    fake.script([
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/cookie/show` } }] },
      { toolCalls: [{ name: "browser_content", arguments: {} }] },
      { text: "Done." },
    ]);
    const { chunks } = await sendChat(cookie, second, "show cookies");
    await waitForRun(second);
    expect(outputs(chunks)[1]!.text).toContain("Cookie header: none");
  });
});

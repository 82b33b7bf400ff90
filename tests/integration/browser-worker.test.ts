import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { TBrowserAction, TBrowserEgress, TBrowserObservation } from "@/lib/browser/protocol";
import { BrowserWorkerClient } from "@/lib/browser/worker-client";
import { findChromium } from "@/lib/browser/chromium";
import { spawnBrowserWorker } from "@/workers/browser/spawn-worker";
import { startBrowserWorker, type TBrowserWorker } from "@/workers/browser/worker";
import { startBrowserSite, type TBrowserSite } from "../fixtures/browser-site/server";

// Slow by nature (real Chromium), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * The browser worker on its own: real Chromium, real HTTP, the fixture site on 127.0.0.1 (on the
 * allow-list, port and all, and a site every session here allows: egress has its own tests in
 * browser-egress.test.ts). Made-up DNS names let the tests resolve a public-looking name to
 * loopback, as an attacker's DNS would.
 */
const SECRET = randomBytes(24).toString("hex");
const chromium = findChromium();
if (!chromium) throw new Error("These tests need Chromium (apt-get install chromium, or CHROMIUM_PATH).");

let site: TBrowserSite;
let worker: TBrowserWorker;
let client: BrowserWorkerClient;
const lookup = async (host: string) => {
  if (host === "rebind.test") return ["127.0.0.1"];
  if (host === "metadata.test") return ["169.254.169.254"];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};

function options(overrides: Partial<Parameters<typeof startBrowserWorker>[0]> = {}) {
  return {
    secret: SECRET,
    executablePath: chromium!,
    allowedPrivateHosts: [site.host],
    maxContexts: 10,
    idleMs: 10 * 60_000,
    navigationTimeoutMs: 10_000,
    networkIdleMs: 1_000,
    contentPageCharacters: 4_000,
    lookup,
    ...overrides,
  };
}

beforeAll(async () => {
  site = await startBrowserSite();
  worker = await startBrowserWorker(options());
  client = new BrowserWorkerClient({ url: worker.url, secret: SECRET });
}, 60_000);
afterAll(async () => {
  await worker?.close(1_000);
  await site?.close();
});
beforeEach(() => site.reset());

/** Every session here allows the fixture site. */
const egress = () => ({ mode: "ask" as const, allowedOrigins: [site.url] });

let sessionCounter = 0;
function newSession(userId = "user-a", policy: TBrowserEgress = egress()) {
  const sessionId = `session-${++sessionCounter}-${randomBytes(3).toString("hex")}`;
  return (action: TBrowserAction) => client.act({ userId, sessionId, action, egress: policy });
}

const navigate = (url: string): TBrowserAction => ({ type: "navigate", url });
const text: TBrowserAction = { type: "content", mode: "text", offset: 0 };
const click = (agentId: number, allowSensitive = false): TBrowserAction => ({ type: "click", target: { agentId }, allowSensitive });

function idOf(observation: TBrowserObservation, role: string, label: string): number {
  const match = new RegExp(`\\[(\\d+) ${role} "${label}"`).exec(observation.text);
  expect(match, `${role} "${label}" in:\n${observation.text}`).not.toBeNull();
  return Number(match![1]);
}

describe("the worker's HTTP API", () => {
  it("refuses requests without the shared secret", async () => {
    expect((await fetch(`${worker.url}/v1/health`)).status).toBe(401);
    expect((await fetch(`${worker.url}/v1/health`, { headers: { authorization: "Bearer wrong-secret-wrong-secret" } })).status).toBe(401);
    const act = await fetch(`${worker.url}/v1/act`, { method: "POST", body: JSON.stringify({ userId: "u", sessionId: "s", action: navigate(`${site.url}/form.html`), egress: egress() }) });
    expect(act.status).toBe(401);
    expect(site.requests).toEqual([]);
    expect(await client.health()).toMatchObject({ status: "ok", browser: "connected" });
  });

  it("validates actions", async () => {
    const response = await fetch(`${worker.url}/v1/act`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}` },
      body: JSON.stringify({ userId: "u", sessionId: "s", action: { type: "click", target: {}, allowSensitive: false } }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/agentId or selector/);
  });
});

describe("reading pages", () => {
  it("waits for content that JavaScript renders after load, and distils it", async () => {
    const act = newSession();
    const served = await (await fetch(`${site.url}/spa.html`)).text();
    expect(served).not.toContain("Aurora desk lamp");
    const opened = await act(navigate(`${site.url}/spa.html`));
    expect(opened.text).toContain(`Opened "Products" — ${site.url}/spa.html`);
    const content = await act(text);
    expect(content.text).toContain('[1 link "Aurora desk lamp" → /product/1] $49');
    expect(content.text).toContain('[4 button "Load more"]');
    expect(content.text).not.toMatch(/<script|addEventListener|\.card \{/);
    expect(content.stats!.distilledCharacters).toBeLessThan(content.stats!.rawCharacters / 4);
  });

  it("keeps forms, fields and their state in html mode, without scripts, styles or class noise", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    const html = await act({ type: "content", mode: "html", offset: 0 });
    expect(html.text).toContain('<form method="post" action="/submit">');
    expect(html.text).toContain('<input data-agent-id="4" type="text" name="name" label="Your name" value="">');
    expect(html.text).toContain('<select data-agent-id="6" name="plan" label="Plan"><option selected>Free</option><option>Pro</option><option>Team</option></select>');
    expect(html.text).toContain('<button data-agent-id="9" needs-approval>Submit order</button>');
    expect(html.text).not.toMatch(/<script|<meta|class=|getElementById/);
  });

  it("pages a long text by offset, with a note that says how to read on", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/long.html`));
    const parts: string[] = [];
    let offset = 0;
    for (let guard = 0; guard < 30; guard++) {
      const part = await act({ type: "content", mode: "text", offset });
      const body = part.text.split("\n").slice(2);
      const next = /\[(\d+) more characters\. Call browser_content with offset=(\d+) to read on\.\]$/.exec(part.text);
      if (!next) {
        expect(part.text).toMatch(/\[End of the page\.\]$/);
        parts.push(body.slice(0, -1).join("\n"));
        break;
      }
      expect(part.text.split("\n")[1]).toBe(`[characters ${offset}–${next[2]} of ${part.stats!.distilledCharacters}]`);
      parts.push(body.slice(0, -1).join("\n"));
      offset = Number(next[2]);
    }
    const whole = parts.join("\n");
    expect(parts.length).toBeGreaterThan(5);
    expect(parts[0]).not.toContain("THE END MARKER");
    expect(whole).toContain("Paragraph 400:");
    expect(whole.trimEnd().endsWith("THE END MARKER")).toBe(true);
    // Nothing lost or repeated between parts.
    expect(whole.match(/Paragraph \d+:/g)).toHaveLength(400);
    const beyond = await act({ type: "content", mode: "text", offset: 10_000_000 });
    expect(beyond).toMatchObject({ isError: true, text: expect.stringMatching(/past the end/) });
  });

  it("returns what is there when the network never goes quiet", async () => {
    const act = newSession();
    const started = Date.now();
    const opened = await act(navigate(`${site.url}/slow.html`));
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(opened.text).toMatch(/still loading after \d+ s; this is what is there so far/);
    expect((await act(text)).text).toContain("The headline is ready.");
  });

  it("dismisses a cookie banner after navigating", async () => {
    const act = newSession();
    const opened = await act(navigate(`${site.url}/cookie-banner.html`));
    expect(opened.text).toContain('Dismissed a popup by clicking "Accept all".');
    const content = await act(text);
    expect(content.text).toContain("Consent: given");
    expect(content.text).not.toContain("We use cookies");
  });
});

describe("acting on pages", () => {
  it("clicks a calendar cell by its id", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/calendar.html`));
    const listing = await act(text);
    const fourteenth = idOf(listing, "gridcell", "July 14, 2026");
    expect((await act(click(fourteenth))).text).toBe('Clicked [14 gridcell "July 14, 2026"].');
    const after = await act(text);
    expect(after.text).toContain("Selected date: 2026-07-14");
    expect(after.text).toContain('[14 gridcell "July 14, 2026" selected]');
  });

  it("types into a combobox, lists the options that appear, and picks one with the keyboard", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/combobox.html`));
    const typed = await act({ type: "type", target: { selector: "#city" }, text: "Pa", allowSensitive: false });
    expect(typed.text).toContain('Typed into [1 combobox "City"]: its value is now "Pa".');
    expect(typed.text).toContain('New on the page: [2 option "Paris"] [3 option "Parma"]');
    // Clicking an option by id works as well as the keyboard; here the keyboard.
    expect((await act({ type: "key", key: "ArrowDown", allowSensitive: false })).text).toBe('Pressed ArrowDown in [1 combobox "City"].');
    await act({ type: "key", key: "Enter", allowSensitive: false });
    expect((await act(text)).text).toContain("Chosen: Paris");
    await act({ type: "type", target: { agentId: 1 }, text: "Pr", allowSensitive: false });
    const listing = await act(text);
    await act(click(idOf(listing, "option", "Prague")));
    expect((await act(text)).text).toContain("Chosen: Prague");
  });

  it("chooses a select option by its label", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    const chosen = await act({ type: "type", target: { agentId: 6 }, text: "Team", allowSensitive: false });
    expect(chosen.text).toContain('its value is now "Team"');
  });

  it("clicks an element another one covers through the DOM", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/obstructed.html`));
    const clicked = await act(click(1));
    expect(clicked.text).toBe('Clicked [1 button "Show the answer"] (div#shield was covering it, so it was clicked through the DOM).');
    expect((await act(text)).text).toContain("The answer is 42");
  });

  it("waits for a navigation a click starts, also from a script or into a new tab", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/navigate.html`));
    const scripted = await act(click(1));
    expect(scripted.text).toContain(`Navigated to "Landing" — ${site.url}/landing.html?from=button`);
    await act(navigate(`${site.url}/navigate.html`));
    const tab = await act({ type: "click", target: { selector: "text=Open the landing page in a new tab" }, allowSensitive: false });
    expect(tab.text).toContain(`It opened a new tab, now the current page: "Landing" — ${site.url}/landing.html`);
    expect((await act(text)).text).toContain("You arrived");
  });

  it("keeps ids valid as the page changes: old ones stay, new ones are added", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/spa.html`));
    const more = await act({ type: "click", target: { selector: "#more" }, allowSensitive: false });
    expect(more.text).toContain('New on the page: [5 link "Delta notebook"] [6 link "Ember candle"]');
    const listing = await act(text);
    expect(listing.text).toContain('[1 link "Aurora desk lamp"');
    expect(listing.text).not.toContain('"Load more"');
    const gone = await act(click(4));
    expect(gone).toMatchObject({ isError: true, text: expect.stringContaining("There is no element 4 on the page now") });
  });

  it("scrolls and reports the position", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/long.html`));
    const down = await act({ type: "scroll", direction: "down", pixels: 5_000 });
    expect(down.text).toMatch(/^Scrolled down 5000 px: the view shows 5000–5800 of \d+ px\.$/);
    const up = await act({ type: "scroll", direction: "up", pixels: 10_000 });
    expect(up.text).toMatch(/the view shows 0–800 of \d+ px \(the top\)/);
  });

  it("takes screenshots, plain and with numbered boxes", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    const plain = await act({ type: "screenshot", annotated: false });
    const annotated = await act({ type: "screenshot", annotated: true });
    for (const shot of [plain, annotated]) {
      expect(shot.image?.mediaType).toBe("image/png");
      expect(Buffer.from(shot.image!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    }
    expect(annotated.text).toContain('[9 button "Submit order"] (needs approval)');
    expect(annotated.text).toContain('[4 textbox "Your name"]');
    expect(annotated.image!.data).not.toBe(plain.image!.data);
    // The boxes are drawn for the picture only; the page itself is unchanged afterwards.
    expect((await act({ type: "screenshot", annotated: false })).image!.data).toBe(plain.image!.data);
  });
});

describe("safety", () => {
  it("refuses to click what submits a form unless the call was marked and approved", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    await act({ type: "type", target: { agentId: 4 }, text: "Grace Hopper", allowSensitive: false });
    const refused = await act(click(9));
    expect(refused).toMatchObject({ isError: true, needsApproval: { reason: 'it is labelled "Submit order"' } });
    const bySelector = await act({ type: "click", target: { selector: "form[method=post] button" }, allowSensitive: false });
    expect(bySelector.needsApproval).toBeDefined();
    const enter = await act({ type: "key", key: "Enter", allowSensitive: false });
    expect(enter).toMatchObject({ isError: true, needsApproval: { reason: expect.stringContaining("it submits the form") } });
    const deleteDraft = await act(click(10));
    expect(deleteDraft.needsApproval?.reason).toBe('it is labelled "Delete draft"');
    expect(site.submissions).toEqual([]);

    const submitted = await act(click(9, true));
    expect(submitted.text).toContain('Navigated to "Order received"');
    expect(site.submissions).toEqual([{ name: "Grace Hopper", email: "", plan: "Free", notes: "" }]);
  });

  it("refuses an approved click when the element changed since the approval card was shown", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    const described = await act({ type: "describe", action: "click", target: { agentId: 9 } });
    expect(described.title).toBe(`Click "Submit order" on ${site.host}`);
    expect(described.text).toContain(`button "Submit order" — it is labelled "Submit order", on "Order form" — ${site.url}/form.html`);
    // The page rewrites the button after the card was shown.
    await act(navigate(`${site.url}/form.html`));
    const clicked = await act(click(9, true));
    expect(clicked).toMatchObject({ isError: true, text: expect.stringContaining("the page changed since the user approved this") });
    expect(site.submissions).toEqual([]);
  });

  it("never turns typing into a click: a menu item, or a submit button posing as a text box, is refused", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/tricks.html`));
    const clicked = await act({ type: "click", target: { selector: "#delete-account" }, allowSensitive: false });
    expect(clicked.needsApproval?.reason).toBe('it is labelled "Delete account"');
    const menuItem = await act({ type: "type", target: { selector: "#delete-account" }, text: "x", allowSensitive: false });
    expect(menuItem).toMatchObject({ isError: true, text: expect.stringMatching(/menuitem "Delete account"\] is not a text field, so nothing was typed/) });
    const button = await act({ type: "type", target: { selector: "#nickname" }, text: "Ada", allowSensitive: false });
    expect(button).toMatchObject({ isError: true, text: expect.stringMatching(/textbox "Nickname"\] is not a text field, so nothing was typed/) });
    expect(site.submissions).toEqual([]);
  });

  it("types line breaks and tabs into a one-line field as spaces, never as Enter or Tab", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/tricks.html`));
    const newline = await act({ type: "type", target: { selector: "#order-search" }, text: "A-1001\n", allowSensitive: false });
    expect(newline.isError).toBe(false);
    expect(newline.text).toContain('its value is now "A-1001"');
    expect(newline.text).toContain("typing never presses Enter or Tab");
    // Two tabs would reach the next form's submit button, and the space would press it.
    const tabs = await act({ type: "type", target: { selector: "#order-search" }, text: "B-2002\t\t ", allowSensitive: false });
    expect(tabs.text).toContain('its value is now "B-2002');
    expect(site.submissions).toEqual([]);
    // Enter is browser_key's, and there it asks first.
    expect((await act({ type: "key", key: "Enter", allowSensitive: false })).needsApproval?.reason).toContain("it submits a form (POST");
    expect(site.submissions).toEqual([]);
  });

  it("judges a click by the element that acts: a label's submit button, the button around a span", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/tricks.html`));
    const label = await act({ type: "click", target: { selector: "label[for=next-button]" }, allowSensitive: false });
    expect(label).toMatchObject({ isError: true, needsApproval: { reason: `it activates button "Next", which submits a form (POST ${site.url}/submit)` } });
    const span = await act({ type: "click", target: { selector: "#inner-span" }, allowSensitive: false });
    expect(span).toMatchObject({ isError: true, needsApproval: { reason: `it activates button "Next step", which submits a form (POST ${site.url}/submit)` } });
    expect(site.submissions).toEqual([]);
    const approved = await act({ type: "click", target: { selector: "label[for=next-button]" }, allowSensitive: true });
    expect(approved.text).toContain('Navigated to "Order received"');
    expect(site.submissions).toEqual([{ which: "label" }]);
  });

  it("asks before Enter submits a form inside a frame", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/frame-checkout.html`));
    expect((await act({ type: "click", target: { selector: "#edit-card" }, allowSensitive: false })).isError).toBe(false);
    const enter = await act({ type: "key", key: "Enter", allowSensitive: false });
    expect(enter).toMatchObject({ isError: true, needsApproval: { reason: expect.stringContaining(`it submits a form (POST ${site.url}/submit)`) } });
    expect(enter.text).toContain('pressing Enter in [textbox "Card number"] inside a frame');
    expect(site.submissions).toEqual([]);
    const described = await act({ type: "describe", action: "key", key: "Enter" });
    expect(described.submission).toEqual({ kind: "form", method: "POST", origin: site.url });
    const approved = await act({ type: "key", key: "Enter", allowSensitive: true });
    expect(approved.isError).toBe(false);
    expect(site.submissions).toEqual([{ which: "iframe", card: "4111 1111 1111 1111" }]);
  });

  it("marks a CAPTCHA for the user and holds every action on that page for approval", async () => {
    const act = newSession();
    const opened = await act(navigate(`${site.url}/captcha.html`));
    expect(opened.captcha).toBe(true);
    expect(opened.text).toMatch(/^\[CAPTCHA\] This page shows a reCAPTCHA\. A person has to solve it/);
    expect(opened.image?.mediaType).toBe("image/png");
    const refused = await act(click(1));
    expect(refused.needsApproval?.reason).toBe("this page shows a reCAPTCHA");
    expect((await act({ type: "key", key: "Tab", allowSensitive: false })).needsApproval).toBeDefined();
    expect(site.requests.filter((request) => request.startsWith("/landing.html"))).toEqual([]);
    const approved = await act(click(1, true));
    expect(approved.text).toContain('Navigated to "Landing"');
  });

  it.each([
    ["a loopback name", (port: number) => `http://localhost:${port}/secret`, "localhost is a loopback name"],
    ["a name that resolves to loopback", (port: number) => `http://rebind.test:${port}/secret`, "rebind.test resolves to 127.0.0.1, a loopback address"],
    ["a name that resolves to the metadata service", () => "http://metadata.test/latest/meta-data/", "link-local"],
    ["another loopback address", (port: number) => `http://127.0.0.2:${port}/secret`, "127.0.0.2 is a loopback address"],
    ["another port of the allowed host", (port: number) => `http://127.0.0.1:${port + 1}/secret`, "127.0.0.1 is a loopback address"],
    ["IPv6 loopback", (port: number) => `http://[::1]:${port}/secret`, "::1 is a loopback address"],
    ["the metadata address", () => "http://169.254.169.254/latest/meta-data/", "link-local"],
    ["a private address", () => "http://10.0.0.1/", "10.0.0.1 is a private address"],
    ["a numeric loopback", (port: number) => `http://2130706434:${port}/secret`, "127.0.0.2 is a loopback address"],
    ["a file", () => "file:///etc/passwd", "file: URLs cannot be opened"],
    ["a browser page", () => "chrome://version", "chrome: URLs cannot be opened"],
    ["about:", () => "about:blank", "about: URLs cannot be opened"],
    ["data:", () => "data:text/html,<h1>hi</h1>", "data: URLs cannot be opened"],
  ])("refuses to navigate to %s", async (_name, url, reason) => {
    // Whatever the sites the session allows: here, all of them.
    const act = newSession("user-a", { mode: "allow", allowedOrigins: [] });
    const refused = await act(navigate(url(site.port)));
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(reason);
    expect(site.requests).toEqual([]);
  });

  it("refuses a redirect from an allowed page to a private address", async () => {
    const act = newSession();
    for (const target of [`http://localhost:${site.port}/secret`, `http://rebind.test:${site.port}/secret`, `http://127.0.0.2:${site.port}/secret`]) {
      const refused = await act(navigate(`${site.url}/redirect?to=${encodeURIComponent(target)}`));
      expect(refused).toMatchObject({ isError: true, text: expect.stringContaining(`redirected to ${target}`) });
    }
    expect(site.requests.filter((request) => request.startsWith("/redirect"))).toHaveLength(3);
    expect(site.requests.filter((request) => request.startsWith("/secret"))).toEqual([]);
  });

  it("blocks requests a page makes to private addresses", async () => {
    const act = newSession();
    for (const target of [`http://localhost:${site.port}/secret`, `http://rebind.test:${site.port}/secret`]) {
      const opened = await act(navigate(`${site.url}/fetch-private.html?target=${encodeURIComponent(target)}`));
      expect(opened.text).toMatch(/Blocked \d+ requests? to addresses the browser may not reach: http:\/\/(localhost|rebind\.test)/);
      expect((await act(text)).text).toContain("fetch failed");
    }
    expect(site.requests.filter((request) => request.startsWith("/secret"))).toEqual([]);
  });
});

describe("sessions", () => {
  it("keeps cookies and storage of one session away from every other", async () => {
    const first = newSession("user-a");
    const second = newSession("user-a");
    const otherUser = newSession("user-b");
    await first(navigate(`${site.url}/cookie/set?value=alpha`));
    expect((await first(navigate(`${site.url}/cookie/show`))).isError).toBe(false);
    const own = await first(text);
    expect(own.text).toContain("Cookie header: visitor=alpha");
    expect(own.text).toContain("localStorage note: alpha");
    for (const act of [second, otherUser]) {
      await act(navigate(`${site.url}/cookie/show`));
      const seen = await act(text);
      expect(seen.text).toContain("Cookie header: none");
      expect(seen.text).toContain("localStorage note: none");
    }
  });

  it("refuses a session id that belongs to another user", async () => {
    await client.act({ userId: "owner", sessionId: "shared-session-id", action: navigate(`${site.url}/form.html`), egress: egress() });
    await expect(client.act({ userId: "intruder", sessionId: "shared-session-id", action: text, egress: egress() })).rejects.toThrow(/belongs to another user/);
    await expect(client.closeSession({ userId: "intruder", sessionId: "shared-session-id" })).rejects.toThrow(/belongs to another user/);
    expect(await client.closeSession({ userId: "owner", sessionId: "shared-session-id" })).toBe(true);
    const after = await client.act({ userId: "owner", sessionId: "shared-session-id", action: text, egress: egress() });
    expect(after.text).toContain("closed because its chat session ended");
  });

  it("runs one session's actions in order, even when they arrive together", async () => {
    const act = newSession();
    await act(navigate(`${site.url}/form.html`));
    const results = await Promise.all([
      act({ type: "type", target: { agentId: 4 }, text: "first", allowSensitive: false }),
      act({ type: "type", target: { agentId: 4 }, text: "second", allowSensitive: false }),
      act({ type: "type", target: { agentId: 4 }, text: "third", allowSensitive: false }),
    ]);
    expect(results.map((result) => /value is now "(\w+)"/.exec(result.text)?.[1])).toEqual(["first", "second", "third"]);
  });
});

describe("lifecycle", () => {
  it("closes idle contexts and the least recently used one beyond the cap", { timeout: 90_000 }, async () => {
    // Idle long enough that three navigations on a loaded machine cannot reach it: "one" must be
    // closed for being the least recently used, not for being idle.
    const small = await startBrowserWorker(options({ maxContexts: 2, idleMs: 8_000 }));
    const smallClient = new BrowserWorkerClient({ url: small.url, secret: SECRET });
    const act = (sessionId: string, action: TBrowserAction) => smallClient.act({ userId: "u", sessionId, action, egress: egress() });
    try {
      await act("one", navigate(`${site.url}/landing.html`));
      await act("two", navigate(`${site.url}/landing.html`));
      await act("three", navigate(`${site.url}/landing.html`));
      expect(small.pool.openSessions()).toBe(2);
      expect((await act("one", text)).text).toContain("closed because 2 other sessions needed the browser more recently");
      expect((await act("three", text)).text).toContain("You arrived");
      await expect.poll(() => small.pool.openSessions(), { timeout: 40_000, interval: 250 }).toBe(0);
      expect((await act("three", text)).text).toContain("closed because it was not used for");
    } finally {
      await small.close(1_000);
    }
  });

  it("relaunches a browser that crashed", async () => {
    const own = await startBrowserWorker(options());
    const ownClient = new BrowserWorkerClient({ url: own.url, secret: SECRET });
    try {
      await ownClient.act({ userId: "u", sessionId: "before", action: navigate(`${site.url}/landing.html`), egress: egress() });
      const before = chromiumProcesses();
      // kill -9 the browser's main process (the one without --type=, i.e. not a renderer or helper)
      const main = before.filter((entry) => !entry.command.includes("--type=") && !knownBrowsers.has(entry.pid));
      expect(main).toHaveLength(1);
      process.kill(main[0]!.pid, "SIGKILL");
      await expect.poll(() => own.pool.health().browser, { timeout: 20_000 }).toBe("connected");
      await expect.poll(() => own.pool.launches, { timeout: 20_000 }).toBe(2);
      const lost = await ownClient.act({ userId: "u", sessionId: "before", action: text, egress: egress() });
      expect(lost.text).toContain("closed because the browser crashed and was restarted");
      const fresh = await ownClient.act({ userId: "u", sessionId: "after", action: navigate(`${site.url}/landing.html`), egress: egress() });
      expect(fresh.text).toContain('Opened "Landing"');
    } finally {
      await own.close(1_000);
    }
  });

  it("runs as its own process, and shuts down gracefully with its browser", async () => {
    const root = path.resolve(import.meta.dirname, "..", "..");
    const logs: string[] = [];
    const started = await spawnBrowserWorker({ root, env: { ...process.env, LOG_LEVEL: "warn" }, secret: SECRET, port: 0, onLog: (line) => logs.push(line) });
    if ("error" in started) throw new Error(started.error);
    const processClient = new BrowserWorkerClient({ url: started.url, secret: SECRET });
    expect(await processClient.health()).toMatchObject({ status: "ok", browser: "connected" });
    expect((await fetch(`${started.url}/v1/health`)).status).toBe(401);
    const workerPid = started.pid()!;
    const browsers = childrenOf(workerPid)
      .filter((entry) => entry.command.includes("chrom"))
      .map((entry) => entry.pid);
    expect(browsers.length).toBeGreaterThan(0);
    await started.stop();
    expect(() => process.kill(workerPid, 0)).toThrow();
    await expect.poll(() => processes().filter((entry) => browsers.includes(entry.pid)).length, { timeout: 10_000 }).toBe(0);
    expect(logs).toEqual([]);
  });
});

type TProcess = { pid: number; ppid: number; command: string };

function processes(): TProcess[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="])
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)!)
    // Zombies have exited already; they only wait for their parent to notice.
    .filter(([, , , stat]) => !stat!.startsWith("Z"))
    .map(([, pid, ppid, , command]) => ({ pid: Number(pid), ppid: Number(ppid), command: command! }));
}

function childrenOf(pid: number): TProcess[] {
  return processes().filter((entry) => entry.ppid === pid);
}

// Browsers started by this test process before the crash test (the shared worker's) are left alone.
const knownBrowsers = new Set<number>();
function chromiumProcesses(): TProcess[] {
  return childrenOf(process.pid).filter((entry) => entry.command.startsWith(chromium!) || entry.command.includes("chrom"));
}
beforeAll(() => {
  for (const entry of chromiumProcesses()) knownBrowsers.add(entry.pid);
});

import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { errors, type Browser, type BrowserContext, type Dialog, type Frame, type Locator, type Page, type Request, type Route } from "playwright-core";
import { describeSubmission, type TBrowserAction, type TBrowserObservation, type TBrowserSubmission, type TBrowserTarget } from "@/lib/browser/protocol";
import { SENSITIVE_WORDS_PATTERN } from "@/lib/browser/sensitive-actions";
import { navigationUrl } from "@/lib/browser/navigation-url";
import { originOf, type TEgressPolicy } from "@/lib/browser/egress";
import type { TUrlVerdict, UrlGuard } from "@/lib/net/url-guard";
import { EgressGuard, type TEgressRefusal } from "./egress-guard";
import { BLOCKED_HEADER, startEgressProxy, type TEgressProxy } from "./egress-proxy";
import { runInPage, type TInPageCommand, type TInPageElement, type TInPageFocus, type TInPageResult, type TInPageSubmission } from "./in-page";
import { SubmissionGuard, type TSubmissionRefusal, type TSubmissionRules } from "./submission-guard";

/**
 * One agent session's browser: its own BrowserContext (cookies, storage, cache and permissions
 * never shared), its own egress proxy, the current page, and the actions the tools perform on it.
 * Actions run one at a time in arrival order. Every action ends by renumbering the interactive
 * elements, so the ids in the observation are the ones the next action can use.
 */
export type TSessionSettings = {
  guard: UrlGuard;
  navigationTimeoutMs: number;
  /** How long to wait, after the load event, for the network to go quiet. */
  networkIdleMs: number;
  contentPageCharacters: number;
};

type TLocated = { locator: Locator; element: TInPageElement; state: TInPageResult; key: string; marker?: string; note?: string };
/** What an approval card showed, so the approved action can be held to it. */
type TShown = { document: string; tag: string; label: string; submission?: TBrowserSubmission; destination: string; pageOrigin: string };
type TNavigationResult = { navigated: boolean; settled: boolean; popup: boolean };

const VIEWPORT = { width: 1280, height: 800 };
const AFTER_ACTION_QUIET_MS = 1_500;
const KEY_ALIASES: Record<string, string> = { Space: " ", Spacebar: " ", Esc: "Escape", Return: "Enter", Del: "Delete", Up: "ArrowUp", Down: "ArrowDown", Left: "ArrowLeft", Right: "ArrowRight" };

function normalizeKey(raw: string): string {
  return raw
    .split("+")
    .map((part) => KEY_ALIASES[part] ?? part)
    .join("+");
}

/** The origin (not the path or query) a submission goes to: what an approval binds. */
function toSubmission(found: TInPageSubmission | undefined): TBrowserSubmission | undefined {
  if (!found) return undefined;
  let origin = found.url;
  try {
    origin = new URL(found.url).origin;
  } catch {
    // Kept as the page wrote it; it then matches nothing else.
  }
  return { kind: found.kind, method: found.method, origin };
}

function sameSubmission(first: TBrowserSubmission | undefined, second: TBrowserSubmission | undefined): boolean {
  return first?.method === second?.method && first?.origin === second?.origin;
}

function withoutQuery(url: string): string {
  return url.split(/[?#]/)[0]!;
}

function clipUrl(url: string): string {
  return url.length > 300 ? `${url.slice(0, 299)}…` : url;
}

/** Said of a site that is not on the session's list. */
const NOT_ALLOWED = "a site the user has not allowed in this chat";

/** Why an action that would send data to a site that is not allowed needs the user's approval, or undefined. */
export function egressReason(allows: (origin: string) => boolean, checks: { origin: string; reason: string }[]): string | undefined {
  return checks.find((check) => !allows(check.origin))?.reason;
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Playwright appends a call log; the first line says what happened.
  return message.split("\n")[0]!.replace(/^(locator|page|elementHandle)\.\w+: /, "").slice(0, 300);
}

function isContextGone(error: unknown): boolean {
  return /Execution context was destroyed|Target (page, context or browser )?(has been )?closed|navigation/i.test(errorMessage(error));
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** `[7 button "Submit order"]`, the way content lists elements. */
export function elementToken(element: Pick<TInPageElement, "id" | "role" | "label">): string {
  return `[${element.id ? `${element.id} ` : ""}${element.role}${element.label ? ` ${quote(element.label)}` : ""}]`;
}

function failure(text: string): TBrowserObservation {
  return { text, isError: true };
}

/** The observation for an action that was not done because the user has to approve it first. */
export function approvalNeeded(what: string, reason: string, tool: string): TBrowserObservation {
  return {
    text: `Not done: ${what} needs the user's approval, because ${reason}. To ask the user, call ${tool} again with the same arguments and "sensitive": true.`,
    isError: true,
    needsApproval: { reason },
  };
}

/** Opening a site that is not allowed, without an approved call: refused before anything loads. */
export function navigationNeedsApproval(url: string, origin: string): TBrowserObservation {
  return approvalNeeded(`opening ${clipUrl(url)}`, `it sends the address to ${origin}, ${NOT_ALLOWED}`, "browser_navigate");
}

export function refusedNavigation(url: string, verdict: TUrlVerdict & { ok: false }): TBrowserObservation {
  if (verdict.unresolved) return failure(`Could not open ${url}: ${verdict.reason}.`);
  return failure(`Refused to open ${url}: ${verdict.reason}. The browser opens public web sites only.`);
}

export class BrowserSession {
  lastUsed = Date.now();
  busy = 0;
  private page!: Page;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inflight = new Map<Page, Set<Request>>();
  private notes: { seq: number; text: string }[] = [];
  private blocked: { seq: number; target: string; reason: string }[] = [];
  private egressBlocked: { seq: number; refusal: TEgressRefusal }[] = [];
  private seq = 0;
  /** Confirm dialogs are accepted only while an approved sensitive action runs. */
  private acceptDialogs = false;
  /** The document whose CAPTCHA was last shown to the user as a picture. */
  private captchaShown: string | undefined;
  /** What the approval card showed, per target, so an approved action cannot act on something else or send elsewhere. */
  private readonly previews = new Map<string, TShown>();
  /** Per target: the site an unapproved action on it tried to reach and was stopped, so the card can name it. */
  private readonly refusedDestinations = new Map<string, { document: string; origin: string }>();

  private constructor(
    readonly userId: string,
    readonly sessionId: string,
    private readonly context: BrowserContext,
    private readonly proxy: TEgressProxy,
    private readonly settings: TSessionSettings,
    private readonly submissions: SubmissionGuard,
    private readonly egress: EgressGuard,
  ) {}

  static async open(browser: Browser, options: { userId: string; sessionId: string; settings: TSessionSettings }): Promise<BrowserSession> {
    let session: BrowserSession | undefined;
    const proxy = await startEgressProxy({ guard: options.settings.guard, onBlocked: (target, reason) => session?.noteBlocked(target, reason) });
    try {
      const major = browser.version().split(".")[0];
      const context = await browser.newContext({
        viewport: VIEWPORT,
        proxy: { server: proxy.url },
        // Service workers would fetch behind the back of request interception.
        serviceWorkers: "block",
        acceptDownloads: false,
        locale: "en-US",
        // The headless user agent gets many sites to refuse service.
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
      });
      const submissions = new SubmissionGuard(context);
      const egress = new EgressGuard(context, (refusal) => session?.noteEgress(refusal));
      await context.addInitScript({ content: submissions.initScript() });
      session = new BrowserSession(options.userId, options.sessionId, context, proxy, options.settings, submissions, egress);
      const created = session;
      context.setDefaultTimeout(options.settings.navigationTimeoutMs);
      await context.route("**/*", (route) => created.guardRoute(route));
      context.on("page", (page) => created.adopt(page));
      created.adopt(await context.newPage());
      return created;
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }

  /** Runs one action after the ones before it. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.busy += 1;
    this.lastUsed = Date.now();
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result.finally(() => {
      this.busy -= 1;
      this.lastUsed = Date.now();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => {});
    await this.proxy.close();
  }

  /** After a browser crash the context is gone already; only the proxy is left to stop. */
  async abandon(): Promise<void> {
    this.closed = true;
    await this.proxy.close();
  }

  /** One action, under the session's egress policy as the app sent it with this action. */
  perform(action: TBrowserAction, egress: TEgressPolicy = { mode: "ask", allowedOrigins: [] }): Promise<TBrowserObservation> {
    this.egress.update(egress);
    switch (action.type) {
      case "navigate":
        return this.navigate(action.url, action.allowSensitive ?? false);
      case "content":
        return this.content(action.mode, action.offset);
      case "click":
        return this.click(action.target, action.allowSensitive);
      case "type":
        return this.type(action.target, action.text, action.allowSensitive);
      case "key":
        return this.key(action.key, action.allowSensitive);
      case "scroll":
        return this.scroll(action.direction, action.pixels);
      case "screenshot":
        return this.screenshot(action.annotated);
      case "describe":
        return this.describe(action.action, action.target, action.key);
    }
  }

  // --- page bookkeeping -------------------------------------------------------------------------

  private adopt(page: Page) {
    if (this.closed) return;
    const requests = new Set<Request>();
    this.inflight.set(page, requests);
    page.on("request", (request) => requests.add(request));
    page.on("requestfinished", (request) => requests.delete(request));
    page.on("requestfailed", (request) => {
      requests.delete(request);
      // A new tab whose first document was refused would stay blank and become the current page.
      if (request.isNavigationRequest() && page.url() === "about:blank" && this.context.pages().length > 1 && /BLOCKED_BY_CLIENT/.test(request.failure()?.errorText ?? "")) {
        void page.close().catch(() => {});
      }
    });
    page.on("dialog", (dialog) => this.handleDialog(dialog));
    page.on("close", () => {
      this.inflight.delete(page);
      if (this.page === page) {
        const open = this.context.pages().filter((candidate) => !candidate.isClosed());
        if (open.length) this.page = open[open.length - 1]!;
      }
    });
    // A new tab (window.open, target=_blank) becomes the current page; keep a few others.
    this.page = page;
    const pages = this.context.pages();
    for (const old of pages.slice(0, Math.max(0, pages.length - 4))) void old.close().catch(() => {});
  }

  private async activePage(): Promise<Page> {
    if (this.page.isClosed()) this.adopt(await this.context.newPage());
    return this.page;
  }

  private handleDialog(dialog: Dialog) {
    const message = dialog.message().slice(0, 200);
    const accept = dialog.type() === "beforeunload" || (dialog.type() === "confirm" && this.acceptDialogs) || dialog.type() === "alert";
    this.note(`The page showed a ${dialog.type()} dialog${message ? ` saying ${quote(message)}` : ""}; it was ${accept ? "accepted" : "dismissed"}.`);
    void (accept ? dialog.accept() : dialog.dismiss()).catch(() => {});
  }

  private async guardRoute(route: Route) {
    const url = route.request().url();
    try {
      // A form submission (or navigation) during an action that the action may not send.
      if (this.submissions.judgeRequest(route.request())) return await route.abort("blockedbyclient");
      if (/^(data|blob):/i.test(url)) return await route.continue();
      // Before the URL guard: its DNS lookup alone would tell the name (secret.attacker.example) to the site's DNS server.
      // A document that may not load: "204 No Content" keeps the current one, where an abort would show an error page.
      if (this.egress.judge(route.request())) return await (route.request().isNavigationRequest() ? route.fulfill({ status: 204 }) : route.abort("blockedbyclient"));
      const verdict = await this.settings.guard.check(url, { protocols: new Set(["http:", "https:", "ws:", "wss:"]) });
      if (verdict.ok) return await route.continue();
      if (verdict.unresolved) return await route.abort("namenotresolved");
      this.noteBlocked(url, verdict.reason);
      await route.abort("blockedbyclient");
    } catch {
      // The page went away while the check ran; the route is gone with it.
    }
  }

  private noteEgress(refusal: TEgressRefusal) {
    this.egressBlocked.push({ seq: ++this.seq, refusal });
    if (this.egressBlocked.length > 50) this.egressBlocked.shift();
  }

  private note(text: string) {
    this.notes.push({ seq: ++this.seq, text });
    if (this.notes.length > 50) this.notes.shift();
  }

  private noteBlocked(target: string, reason: string) {
    this.blocked.push({ seq: ++this.seq, target: target.slice(0, 200), reason });
    if (this.blocked.length > 50) this.blocked.shift();
  }

  private notesSince(mark: number): string[] {
    const lines = this.notes.filter((note) => note.seq > mark).map((note) => note.text);
    const blocked = this.blocked.filter((entry) => entry.seq > mark);
    if (blocked.length) {
      const listed = blocked.slice(0, 3).map((entry) => `${entry.target} (${entry.reason})`);
      lines.push(`Blocked ${blocked.length} request${blocked.length === 1 ? "" : "s"} to addresses the browser may not reach: ${listed.join("; ")}${blocked.length > 3 ? "; …" : ""}.`);
    }
    const egress = this.egressBlocked.filter((entry) => entry.seq > mark).map((entry) => entry.refusal);
    if (egress.length) lines.push(this.egressNote(egress));
    return lines;
  }

  /** Requests a page made on its own (or as a side effect of an action) that the egress guard stopped. */
  private egressNote(refused: TEgressRefusal[]): string {
    const listed = refused.slice(0, 3).map((refusal) => `${refusal.method} ${clipUrl(withoutQuery(refusal.url))}`);
    return `Blocked ${refused.length} request${refused.length === 1 ? "" : "s"} that would have sent data to ${refused.length === 1 ? NOT_ALLOWED : "sites the user has not allowed in this chat"}: ${listed.join("; ")}${refused.length > 3 ? "; …" : ""}. Pages of a site the agent typed on may send data only to allowed sites.`;
  }

  private inPage(command: TInPageCommand, frame?: Frame): Promise<TInPageResult> {
    return runInPage(frame ?? this.page, { ...command, sensitivePattern: SENSITIVE_WORDS_PATTERN });
  }

  /**
   * The focused element wherever it is: when the page's focus is on a frame, the frame that holds
   * the keyboard is asked (Enter there submits that frame's form).
   */
  private async focused(): Promise<{ state: TInPageResult; focus?: TInPageFocus; framed: boolean; focusOrigin: string }> {
    const state = await this.refresh();
    const pageOrigin = originOf(state.url);
    if (!state.focus?.frame) return { state, focus: state.focus, framed: false, focusOrigin: pageOrigin };
    let fallback: { focus: TInPageFocus; url: string } | undefined;
    // Keys typed into a frame go to that frame's site; about:blank and srcdoc frames belong to the page.
    const originIn = (url: string) => (/^about:/i.test(url) ? pageOrigin : originOf(url));
    for (const frame of this.page.frames()) {
      if (frame === this.page.mainFrame()) continue;
      const inner = await this.inPage({ command: "focus" }, frame).catch(() => undefined);
      if (!inner?.focus || inner.focus.frame) continue;
      if (inner.hasFocus) return { state, focus: inner.focus, framed: true, focusOrigin: originIn(inner.url) };
      fallback ??= { focus: inner.focus, url: inner.url };
    }
    // Focus on a frame we could not look into: its site is the frame element's.
    return { state, focus: fallback?.focus, framed: true, focusOrigin: fallback ? originIn(fallback.url) : "null" };
  }

  private submissionRules(mode: TSubmissionRules["mode"], pageUrl: string, expected?: TBrowserSubmission): TSubmissionRules {
    let pageOrigin = "null";
    try {
      pageOrigin = new URL(pageUrl).origin;
    } catch {
      // about:blank and the like: no origin of its own.
    }
    return { mode, pageOrigin, ...(expected ? { expected: { method: expected.method, origin: expected.origin } } : {}) };
  }

  /** The first line of an action's observation when the guard stopped a submission; the flags to set with it. */
  private refusalLine(done: string, refused: TSubmissionRefusal[], tool: string): { line: string; needsApproval?: { reason: string } } | undefined {
    const refusal = refused.find((entry) => entry.kind !== "needs-approval") ?? refused[0];
    if (!refusal) return undefined;
    if (refusal.kind === "needs-approval") {
      const reason = `it set off a form submission (${refusal.method} ${withoutQuery(refusal.url)})`;
      return {
        line: `${done}, but the form submission it set off (${refusal.method} ${withoutQuery(refusal.url)}) was stopped: that needs the user's approval. To ask the user, call ${tool} again with the same arguments and "sensitive": true.`,
        needsApproval: { reason },
      };
    }
    if (refusal.kind === "typing") return { line: `${done}, but ${refusal.text}; the submission was stopped.` };
    return { line: `${done}, but nothing was sent: ${refusal.text}. Look at the page again before doing anything else.` };
  }

  /** The numbering and facts after an action; a page in the middle of navigating is waited for once. */
  private async refresh(): Promise<TInPageResult> {
    await this.activePage();
    try {
      return await this.inPage({ command: "refresh" });
    } catch (error) {
      if (!isContextGone(error)) throw error;
      await this.page.waitForLoadState("domcontentloaded", { timeout: this.settings.navigationTimeoutMs }).catch(() => {});
      return this.inPage({ command: "refresh" });
    }
  }

  /** True when no request of the current page has been in flight for `windowMs`; false at the cap. */
  private async quiet(capMs: number, options: { graceMs?: number; windowMs?: number } = {}): Promise<boolean> {
    const deadline = Date.now() + capMs;
    const windowMs = options.windowMs ?? 500;
    if (options.graceMs) await sleep(options.graceMs);
    let idleSince = Date.now();
    while (Date.now() < deadline) {
      if ((this.inflight.get(this.page)?.size ?? 0) > 0) idleSince = Date.now();
      else if (Date.now() - idleSince >= windowMs) return true;
      await sleep(25);
    }
    return false;
  }

  /** Load, then network quiet, within the navigation budget; false when the budget ran out first. */
  private async settle(startedAt: number): Promise<boolean> {
    const remaining = () => Math.max(0, this.settings.navigationTimeoutMs - (Date.now() - startedAt));
    try {
      await this.page.waitForLoadState("load", { timeout: Math.max(1, remaining()) });
    } catch {
      return false;
    }
    return this.quiet(Math.min(remaining(), this.settings.networkIdleMs));
  }

  /**
   * Watches for a navigation an action may start (a link, a form submit, a script changing
   * location, a new tab) and, when one starts, waits for it to commit and settle.
   */
  private watchNavigation() {
    const page = this.page;
    const startedAt = Date.now();
    let navigationRequest: Request | undefined;
    let requestDone = false;
    let committed = false;
    let popup = false;
    const onRequest = (request: Request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        navigationRequest = request;
        requestDone = false;
      }
    };
    const onRequestDone = (request: Request) => {
      if (request === navigationRequest) requestDone = true;
    };
    const onNavigated = (frame: Frame) => {
      if (frame === page.mainFrame()) committed = true;
    };
    const onPage = () => {
      popup = true;
    };
    page.on("request", onRequest);
    page.on("requestfinished", onRequestDone);
    page.on("requestfailed", onRequestDone);
    page.on("framenavigated", onNavigated);
    this.context.on("page", onPage);
    const stop = () => {
      page.off("request", onRequest);
      page.off("requestfinished", onRequestDone);
      page.off("requestfailed", onRequestDone);
      page.off("framenavigated", onNavigated);
      this.context.off("page", onPage);
    };
    const settle = async (): Promise<TNavigationResult> => {
      try {
        // Form submits and location changes do not start at once.
        const startBy = Date.now() + 400;
        while (!navigationRequest && !committed && !popup && Date.now() < startBy) await sleep(20);
        if (popup) return { navigated: true, popup: true, settled: await this.settle(startedAt) };
        if (!navigationRequest && !committed) return { navigated: false, popup: false, settled: await this.quiet(AFTER_ACTION_QUIET_MS, { graceMs: 50, windowMs: 300 }) };
        const commitBy = startedAt + this.settings.navigationTimeoutMs;
        let doneAt: number | undefined;
        while (!committed && Date.now() < commitBy) {
          // A request that finished (or failed) without a new document: a download, a 204, a block.
          if (requestDone) doneAt ??= Date.now();
          if (doneAt !== undefined && Date.now() - doneAt > 300) break;
          await sleep(20);
        }
        if (!committed) return { navigated: false, popup: false, settled: true };
        return { navigated: true, popup: false, settled: await this.settle(startedAt) };
      } finally {
        stop();
      }
    };
    return { settle, stop };
  }

  private async dismissPopups(): Promise<string[]> {
    const clicked: string[] = [];
    let state: TInPageResult;
    try {
      state = await this.inPage({ command: "dismissals" });
    } catch {
      return clicked;
    }
    for (const candidate of state.dismiss ?? []) {
      try {
        await this.page.locator(`[data-agent-id="${candidate.id}"]`).click({ timeout: 2_000 });
        clicked.push(candidate.label);
      } catch {
        // It moved or vanished on its own; nothing to do.
      }
    }
    if (clicked.length) await this.quiet(1_000, { windowMs: 200 });
    return clicked;
  }

  // --- building observations --------------------------------------------------------------------

  private pageLine(state: TInPageResult): string {
    return `${state.title ? quote(state.title) : "(untitled)"} — ${state.url}`;
  }

  private freshLines(state: TInPageResult): string[] {
    if (!state.freshCount) return [];
    const listed = state.fresh.map(elementToken).join(" ");
    const more = state.freshCount > state.fresh.length ? ` … and ${state.freshCount - state.fresh.length} more (browser_content lists them)` : "";
    return [`New on the page: ${listed}${more}`];
  }

  /** Adds what happened on the side, and the CAPTCHA warning (with a picture the first time). */
  private async finish(lines: string[], state: TInPageResult, mark: number, options: { isError?: boolean } = {}): Promise<TBrowserObservation> {
    const all = [...lines, ...this.notesSince(mark)];
    if (!state.captcha) return { text: all.join("\n"), isError: options.isError ?? false };
    const warning = `[CAPTCHA] This page shows ${state.captcha}. A person has to solve it: stop here and tell the user; do not try to solve it yourself. Clicks, typing and keys on this page need the user's approval from now on.`;
    const observation: TBrowserObservation = { text: [warning, ...all].join("\n"), isError: options.isError ?? false, captcha: true };
    if (this.captchaShown === state.document) return observation;
    this.captchaShown = state.document;
    try {
      const picture = await this.page.screenshot({ type: "png", timeout: 10_000 });
      observation.image = { mediaType: "image/png", data: picture.toString("base64") };
    } catch {
      // The warning stands on its own.
    }
    return observation;
  }

  private needsApproval(what: string, reason: string, tool: string): TBrowserObservation {
    return approvalNeeded(what, reason, tool);
  }

  // --- actions ----------------------------------------------------------------------------------

  private async navigate(raw: string, allowSensitive: boolean): Promise<TBrowserObservation> {
    const url = navigationUrl(raw);
    // The whole address (host, path, query, fragment) goes to that site and its pages' scripts; asked
    // before the URL guard, whose DNS lookup alone would tell the host name to that site's DNS server.
    const origin = originOf(url);
    if (origin !== "null" && !allowSensitive && !this.egress.allows(origin)) return navigationNeedsApproval(url, origin);
    const verdict = await this.settings.guard.check(url);
    if (!verdict.ok) return refusedNavigation(url, verdict);
    const page = await this.activePage();
    this.egress.begin({ kind: "navigate", page, approvedOrigin: allowSensitive ? verdict.url.origin : undefined });
    let observation: TBrowserObservation;
    let refused: TEgressRefusal[] = [];
    try {
      observation = await this.open(page, url, verdict.url.href);
    } finally {
      refused = this.egress.end();
    }
    return refused.length ? { ...observation, text: `${observation.text}\n${this.egressNote(refused)}` } : observation;
  }

  private async open(page: Page, url: string, href: string): Promise<TBrowserObservation> {
    const mark = this.seq;
    const startedAt = Date.now();
    let settled = true;
    let response: Awaited<ReturnType<Page["goto"]>> = null;
    // A timeout after the new page committed still leaves something to read; one before does not.
    let committed = false;
    const onCommit = (frame: Frame) => {
      if (frame === page.mainFrame()) committed = true;
    };
    page.on("framenavigated", onCommit);
    try {
      response = await page.goto(href, { waitUntil: "domcontentloaded", timeout: this.settings.navigationTimeoutMs });
      settled = await this.settle(startedAt);
    } catch (error) {
      if (!(error instanceof errors.TimeoutError) || !committed) {
        const blocked = this.blocked.filter((entry) => entry.seq > mark);
        if (blocked.length) return failure(`Refused: opening ${url} led to ${blocked[0]!.target}, and ${blocked[0]!.reason}. Nothing was loaded from there.`);
        return failure(`Could not open ${url}: ${errorMessage(error)}`);
      }
      settled = false;
    } finally {
      page.off("framenavigated", onCommit);
    }
    const blockedReason = response?.headers()[BLOCKED_HEADER];
    if (blockedReason) {
      return failure(`Refused: ${url} redirected to ${response!.url()}, and ${decodeURIComponent(blockedReason)}. Nothing was loaded from there.`);
    }
    const dismissed = await this.dismissPopups();
    const state = await this.refresh();
    const lines = [`Opened ${this.pageLine(state)}${response && response.status() >= 400 ? ` (HTTP ${response.status()})` : ""}`];
    if (!settled) lines.push(`The page was still loading after ${Math.round((Date.now() - startedAt) / 1000)} s; this is what is there so far.`);
    for (const label of dismissed) lines.push(`Dismissed a popup by clicking ${quote(label)}.`);
    lines.push(`The page has ${state.total} interactive element${state.total === 1 ? "" : "s"}. Read it with browser_content, or look at it with browser_screenshot_annotated.`);
    return this.finish(lines, state, mark);
  }

  private async content(mode: "text" | "html", offset: number): Promise<TBrowserObservation> {
    await this.activePage();
    const state = await this.inPage({ command: "distill", mode });
    const full = state.distilled ?? "";
    const total = full.length;
    if (offset > 0 && offset >= total) return failure(`offset ${offset} is past the end: the page has ${total} characters in ${mode} mode.`);
    let end = Math.min(total, offset + this.settings.contentPageCharacters);
    if (end < total) {
      // End the part at a line break when there is one near the end, so no element is cut in two.
      const lineBreak = full.lastIndexOf("\n", end);
      if (lineBreak > offset + this.settings.contentPageCharacters * 0.8) end = lineBreak + 1;
    }
    const lines = [`Page: ${this.pageLine(state)}`];
    if (offset > 0 || end < total) lines.push(`[characters ${offset}–${end} of ${total}]`);
    lines.push(full.slice(offset, end) || "(the page shows no text)");
    if (end < total) lines.push(`[${total - end} more characters. Call browser_content with offset=${end}${mode === "html" ? ' and mode="html"' : ""} to read on.]`);
    else if (offset > 0) lines.push("[End of the page.]");
    const observation = await this.finish(lines, state, this.seq);
    return { ...observation, stats: { rawCharacters: state.rawCharacters ?? 0, distilledCharacters: total } };
  }

  private async locate(target: TBrowserTarget): Promise<TLocated | TBrowserObservation> {
    const page = await this.activePage();
    if (target.agentId !== undefined) {
      const state = await this.inPage({ command: "describe", agentId: target.agentId });
      if (state.missing || !state.element) {
        return failure(`There is no element ${target.agentId} on the page now (the page has ${state.total} numbered elements). Call browser_content to see the current ids.`);
      }
      return { locator: page.locator(`[data-agent-id="${target.agentId}"]`), element: state.element, state, key: `id:${target.agentId}` };
    }
    const selector = target.selector!;
    const locator = page.locator(selector);
    let count: number;
    try {
      count = await locator.count();
    } catch (error) {
      return failure(`${quote(selector)} is not a selector the browser understands: ${errorMessage(error)}`);
    }
    if (!count) return failure(`Nothing on the page matches ${quote(selector)}. Call browser_content to see the page and its element ids.`);
    const marker = randomBytes(6).toString("hex");
    await locator.first().evaluate((element, value) => element.setAttribute("data-xclaw-target", value), marker, { timeout: 5_000 });
    const state = await this.inPage({ command: "describe", marker });
    if (!state.element) return failure(`The element matching ${quote(selector)} went away.`);
    return { locator: locator.first(), element: state.element, state, marker, key: `selector:${selector}`, note: count > 1 ? `${count} elements match ${quote(selector)}; the first was used.` : undefined };
  }

  private async unmark(located: TLocated) {
    // By query, not by locator: the element may be gone (a locator would wait for it to come back).
    if (located.marker) await this.page.evaluate(`document.querySelectorAll('[data-xclaw-target="${located.marker}"]').forEach((element) => element.removeAttribute("data-xclaw-target"))`).catch(() => {});
  }

  /**
   * An approved action must act on what the approval card showed and send where it said. Returns
   * the destination the action is held to, or why it must not run.
   */
  private approvedBinding(located: TLocated, destination: string): { refusal: TBrowserObservation } | { expected?: TBrowserSubmission; destination: string } {
    const shown = this.previews.get(located.key);
    this.previews.delete(located.key);
    const now = toSubmission(located.element.submission);
    // Approved without a card (an admin's policy): held to what the page says right now.
    if (!shown) return { expected: now, destination };
    if (shown.document !== located.state.document || shown.tag !== located.element.tag || shown.label !== located.element.label) {
      return { refusal: failure(`Not done: the page changed since the user approved this. The approval was for ${quote(shown.label)}; the element is now ${elementToken(located.element)}. Look at the page again.`) };
    }
    if (!sameSubmission(shown.submission, now)) {
      const before = shown.submission ? describeSubmission(shown.submission) : "sends no form and opens no link";
      const after = now ? describeSubmission(now) : "sends no form and opens no link";
      return { refusal: failure(`Not done: the page changed since the user approved this. The approval was for a click that ${before}; ${elementToken(located.element)} now ${after}. Look at the page again.`) };
    }
    return { expected: shown.submission, destination: shown.destination };
  }

  /**
   * The site an action on this target sends data to, as the approval card names it: the one an
   * unapproved try was stopped on its way to (same document), else what the page says.
   */
  private destinationOf(key: string, state: TInPageResult, fallback: string): string {
    const refused = this.refusedDestinations.get(key);
    return refused && refused.document === state.document ? refused.origin : fallback;
  }

  private rememberRefused(key: string, document: string, refused: TEgressRefusal[]) {
    const first = refused.find((refusal) => refusal.kind === "navigation") ?? refused[0];
    if (!first) return;
    this.refusedDestinations.delete(key);
    this.refusedDestinations.set(key, { document, origin: first.origin });
    if (this.refusedDestinations.size > 20) this.refusedDestinations.delete(this.refusedDestinations.keys().next().value!);
  }

  /**
   * What an action's observation says about requests the egress guard stopped during it: a page
   * it would have opened elsewhere replaces the first line (the action did not get where it went);
   * data the page tried to send adds a line.
   */
  private egressReport(done: string, refused: TEgressRefusal[], tool: string): { line?: string; extra: string[]; needsApproval?: { reason: string } } {
    const ask = `To ask the user, call ${tool} again with the same arguments and "sensitive": true.`;
    const navigation = refused.find((refusal) => refusal.kind === "navigation");
    const data = refused.filter((refusal) => refusal.kind === "data");
    const extra = data.length
      ? [
          `While it ran, the page tried to send data to ${data[0]!.origin} (${data.map((refusal) => `${refusal.method} ${clipUrl(withoutQuery(refusal.url))}`).slice(0, 3).join("; ")}), ${NOT_ALLOWED}; that was blocked, because this site holds text the agent typed. If the page needs it, call ${tool} again with the same arguments and "sensitive": true to ask the user.`,
        ]
      : [];
    if (!navigation) return { extra };
    return {
      line: `${done}, but it led to ${navigation.method} ${clipUrl(withoutQuery(navigation.url))}, on ${navigation.origin}, ${NOT_ALLOWED}; nothing was sent there. ${ask}`,
      extra,
      needsApproval: { reason: `it opens ${navigation.origin}, ${NOT_ALLOWED}` },
    };
  }

  private async click(target: TBrowserTarget, allowSensitive: boolean): Promise<TBrowserObservation> {
    const mark = this.seq;
    const located = await this.locate(target);
    if (!("locator" in located)) return located;
    const page = this.page;
    let armed = false;
    try {
      const { element, state } = located;
      const submission = toSubmission(element.submission);
      if (!allowSensitive && state.captcha) return this.needsApproval(`clicking ${elementToken(element)}`, `this page shows ${state.captcha}`, "browser_click");
      if (!allowSensitive && element.sensitive) return this.needsApproval(`clicking ${elementToken(element)}`, element.sensitive, "browser_click");
      const pageOrigin = originOf(state.url);
      if (!allowSensitive) {
        const reason = egressReason((origin) => this.egress.allows(origin), [
          { origin: pageOrigin, reason: `this page is on ${pageOrigin}, ${NOT_ALLOWED}` },
          ...(submission ? [{ origin: submission.origin, reason: `it ${describeSubmission(submission)}, ${NOT_ALLOWED}` }] : []),
        ]);
        if (reason) return this.needsApproval(`clicking ${elementToken(element)}`, reason, "browser_click");
      }
      let expected: TBrowserSubmission | undefined;
      let approvedOrigin: string | undefined;
      if (allowSensitive) {
        const binding = this.approvedBinding(located, this.destinationOf(located.key, state, submission?.origin ?? pageOrigin));
        if ("refusal" in binding) return binding.refusal;
        expected = binding.expected;
        approvedOrigin = binding.destination;
      }
      if (element.disabled) return failure(`${elementToken(element)} is disabled; it cannot be clicked now.`);
      armed = true;
      await this.submissions.arm(page, this.submissionRules(allowSensitive ? "approved" : "unapproved", state.url, expected));
      this.egress.begin({ kind: "click", page, approvedOrigin });
      const watcher = this.watchNavigation();
      let how = "";
      this.acceptDialogs = allowSensitive;
      try {
        const hit = await this.inPage(located.marker ? { command: "hit-test", marker: located.marker } : { command: "hit-test", agentId: element.id });
        if (hit.obstructedBy) {
          await located.locator.evaluate((node) => (node as HTMLElement).click());
          how = ` (${hit.obstructedBy} was covering it, so it was clicked through the DOM)`;
        } else {
          try {
            await located.locator.click({ timeout: 5_000 });
          } catch (error) {
            if (isContextGone(error)) throw error;
            await located.locator.evaluate((node) => (node as HTMLElement).click());
            how = " (a normal click did not go through, so it was clicked through the DOM)";
          }
        }
      } catch (error) {
        if (!isContextGone(error)) {
          watcher.stop();
          return failure(`Could not click ${elementToken(element)}: ${errorMessage(error)}`);
        }
      }
      const navigation = await watcher.settle();
      this.acceptDialogs = false;
      const refused = await this.submissions.disarm([page, this.page]);
      const egressRefused = this.egress.end();
      armed = false;
      this.rememberRefused(located.key, state.document, egressRefused);
      return this.reportAction(`Clicked ${elementToken(element)}${how}`, located.note ? [located.note] : [], refused, "browser_click", navigation, mark, egressRefused);
    } finally {
      this.acceptDialogs = false;
      if (armed) {
        await this.submissions.disarm([page]);
        this.egress.end();
      }
      await this.unmark(located);
    }
  }

  /** The observation of an action that may have set off a submission or a request the guards stopped. */
  private async reportAction(
    done: string,
    extra: string[],
    refused: TSubmissionRefusal[],
    tool: string,
    navigation: TNavigationResult,
    mark: number,
    egressRefused: TEgressRefusal[],
  ): Promise<TBrowserObservation> {
    const egress = this.egressReport(done, egressRefused, tool);
    const refusal = this.refusalLine(done, refused, tool) ?? (egress.line ? { line: egress.line, needsApproval: egress.needsApproval } : undefined);
    const observation = await this.afterAction([refusal?.line ?? `${done}.`, ...extra, ...egress.extra], navigation, mark, { closeBlankTab: egress.line !== undefined });
    if (!refusal) return observation;
    return { ...observation, isError: true, ...(refusal.needsApproval ? { needsApproval: refusal.needsApproval } : {}) };
  }

  private async afterAction(lines: string[], navigation: TNavigationResult, mark: number, options: { closeBlankTab?: boolean } = {}): Promise<TBrowserObservation> {
    let state: TInPageResult;
    if (navigation.popup && options.closeBlankTab && this.page.url() === "about:blank" && this.context.pages().length > 1) {
      // The new tab's page was refused: the tab has nothing in it, and the agent goes on where it was.
      await this.page.close().catch(() => {});
      state = await this.refresh();
      lines.push(`The new tab it tried to open was closed, so the current page is still ${this.pageLine(state)}`);
    } else if (navigation.popup) {
      const dismissed = await this.dismissPopups();
      state = await this.refresh();
      lines.push(`It opened a new tab, now the current page: ${this.pageLine(state)}`, ...dismissed.map((label) => `Dismissed a popup by clicking ${quote(label)}.`));
    } else if (navigation.navigated) {
      const dismissed = await this.dismissPopups();
      state = await this.refresh();
      lines.push(`Navigated to ${this.pageLine(state)}`, ...dismissed.map((label) => `Dismissed a popup by clicking ${quote(label)}.`));
      lines.push(`The page has ${state.total} interactive element${state.total === 1 ? "" : "s"}; browser_content reads it.`);
    } else {
      state = await this.refresh();
      lines.push(...this.freshLines(state));
    }
    if (!navigation.settled) lines.push("The page was still busy when the wait ended; this is what is there so far.");
    return this.finish(lines, state, mark);
  }

  private async type(target: TBrowserTarget, text: string, allowSensitive: boolean): Promise<TBrowserObservation> {
    const mark = this.seq;
    const located = await this.locate(target);
    if (!("locator" in located)) return located;
    const page = this.page;
    let armed = false;
    try {
      const { element, state, locator } = located;
      if (!allowSensitive && state.captcha) return this.needsApproval(`typing into ${elementToken(element)}`, `this page shows ${state.captcha}`, "browser_type");
      if (element.disabled) return failure(`${elementToken(element)} is disabled; nothing can be typed into it.`);
      // Typing never turns into a click: on anything but a field it would press whatever is there.
      if (!element.editable) return failure(`${elementToken(element)} is not a text field, so nothing was typed. To press it, use browser_click.`);
      if (element.editable === "read-only") return failure(`${elementToken(element)} is read-only; nothing can be typed into it.`);
      // Typing sends: the page's scripts see every character and can pass it on.
      const pageOrigin = originOf(state.url);
      const key = `type:${located.key}`;
      if (!allowSensitive && !this.egress.allows(pageOrigin)) {
        return this.needsApproval(`typing into ${elementToken(element)}`, `this page is on ${pageOrigin}, ${NOT_ALLOWED}, and the page gets what is typed`, "browser_type");
      }
      let approvedOrigin: string | undefined;
      if (allowSensitive) {
        const shown = this.previews.get(key);
        this.previews.delete(key);
        if (shown && (shown.pageOrigin !== pageOrigin || shown.document !== state.document)) {
          return failure(`Not done: the page changed since the user approved this. The approval was for typing on ${shown.pageOrigin}; the page is now ${this.pageLine(state)}. Look at the page again.`);
        }
        approvedOrigin = shown?.destination ?? this.destinationOf(key, state, pageOrigin);
      }
      // Line breaks and tabs would be key presses (Enter submits, Tab moves on) or vanish in a
      // one-line field; Enter belongs to browser_key. Text areas keep their lines.
      const multiline = element.tag === "textarea" || (element.tag !== "input" && element.editable === "fill");
      const typed = multiline ? text : text.split(/[\u0000-\u001f\u007f]+/).filter(Boolean).join(" ");
      armed = true;
      this.egress.markHolding(pageOrigin);
      this.egress.begin({ kind: "type", page, approvedOrigin });
      await this.submissions.arm(page, this.submissionRules("typing", state.url));
      try {
        if (element.editable === "select") {
          await locator.selectOption({ label: typed }, { timeout: 5_000 }).catch(() => locator.selectOption(typed, { timeout: 5_000 }));
        } else if (element.editable === "keys") {
          // Autocomplete widgets listen for key events, which fill() does not send.
          await locator.fill("", { timeout: 5_000 });
          await locator.pressSequentially(typed, { delay: 10, timeout: 30_000 });
        } else {
          await locator.fill(typed, { timeout: 5_000 });
        }
      } catch (error) {
        return failure(`Could not type into ${elementToken(element)}: ${errorMessage(error)}`);
      }
      await this.quiet(AFTER_ACTION_QUIET_MS, { graceMs: 50, windowMs: 300 });
      const refused = await this.submissions.disarm([page, this.page]);
      const egressRefused = this.egress.end();
      armed = false;
      this.rememberRefused(key, state.document, egressRefused);
      const after = await this.inPage(located.marker ? { command: "describe", marker: located.marker } : { command: "describe", agentId: element.id });
      const now = after.element ?? element;
      const value = now.tag === "select" ? now.value : now.value ?? "";
      const done = `Typed into ${elementToken(element)}: its value is now ${quote(value ?? "")}`;
      const egress = this.egressReport(done, egressRefused, "browser_type");
      const refusal = this.refusalLine(done, refused, "browser_type") ?? (egress.line ? { line: egress.line } : undefined);
      const lines = [refusal?.line ?? `${done}.`];
      if (typed !== text) lines.push("Line breaks and tabs were typed as spaces: typing never presses Enter or Tab (use browser_key for that).");
      lines.push(...(located.note ? [located.note] : []), ...egress.extra, ...this.freshLines(after));
      return this.finish(lines, after, mark, { isError: refusal !== undefined });
    } finally {
      if (armed) {
        await this.submissions.disarm([page]);
        this.egress.end();
      }
      await this.unmark(located);
    }
  }

  private async key(rawKey: string, allowSensitive: boolean): Promise<TBrowserObservation> {
    const mark = this.seq;
    const key = normalizeKey(rawKey);
    if (!/^(.|([A-Za-z][A-Za-z0-9]*\+)*([A-Za-z][A-Za-z0-9]*|.))$/u.test(key)) return failure(`${quote(rawKey)} is not a key; use names such as Enter, Escape, Tab, ArrowDown or Control+A.`);
    const page = await this.activePage();
    const { state, focus: focused, framed, focusOrigin } = await this.focused();
    const where = focused ? ` in ${elementToken({ id: framed ? 0 : focused.id ?? 0, role: focused.role, label: focused.label })}${framed ? " inside a frame" : ""}` : "";
    const enter = /(^|\+)(Enter|NumpadEnter)$/.test(key);
    const activates = enter || key === " ";
    const submission = activates ? toSubmission(focused?.submission) : undefined;
    const pageOrigin = originOf(state.url);
    const previewKey = `key:${key}`;
    if (!allowSensitive) {
      if (state.captcha) return this.needsApproval(`pressing ${key}`, `this page shows ${state.captcha}`, "browser_key");
      if (activates && focused?.sensitive) return this.needsApproval(`pressing ${key}${where}`, focused.sensitive, "browser_key");
      if (enter && focused?.enterSubmits) return this.needsApproval(`pressing ${key}${where}`, focused.enterSubmits.replace(/^Enter submits/, "it submits"), "browser_key");
      // A key is data too (one character at a time); Enter or Space may also submit a form elsewhere.
      const reason = egressReason((origin) => this.egress.allows(origin), [
        { origin: pageOrigin, reason: `this page is on ${pageOrigin}, ${NOT_ALLOWED}` },
        { origin: focusOrigin, reason: `the focus is in a frame from ${focusOrigin}, ${NOT_ALLOWED}` },
        ...(submission ? [{ origin: submission.origin, reason: `it ${describeSubmission(submission)}, ${NOT_ALLOWED}` }] : []),
      ]);
      if (reason) return this.needsApproval(`pressing ${key}${where}`, reason, "browser_key");
    }
    let expected: TBrowserSubmission | undefined;
    let approvedOrigin: string | undefined;
    if (allowSensitive) {
      const shown = this.previews.get(previewKey);
      this.previews.delete(previewKey);
      if (shown && (shown.label !== (focused?.label ?? "") || shown.pageOrigin !== pageOrigin || !sameSubmission(shown.submission, submission))) {
        return failure(`Not done: the page changed since the user approved this. The approval was for pressing ${key} in ${quote(shown.label)} on ${shown.pageOrigin}${shown.submission ? `, which ${describeSubmission(shown.submission)}` : ""}; now the focus is${where || " nowhere"} on ${pageOrigin}${submission ? `, which ${describeSubmission(submission)}` : ""}. Look at the page again.`);
      }
      expected = shown ? shown.submission : submission;
      approvedOrigin = shown ? shown.destination : this.destinationOf(previewKey, state, submission?.origin ?? focusOrigin);
    }
    this.egress.markHolding(pageOrigin);
    this.egress.markHolding(focusOrigin);
    await this.submissions.arm(page, this.submissionRules(allowSensitive ? "approved" : "unapproved", state.url, expected));
    this.egress.begin({ kind: "key", page, approvedOrigin });
    const watcher = this.watchNavigation();
    this.acceptDialogs = allowSensitive;
    let refused: TSubmissionRefusal[] = [];
    let egressRefused: TEgressRefusal[] = [];
    let navigation: TNavigationResult;
    try {
      try {
        await this.page.keyboard.press(key);
      } catch (error) {
        if (!isContextGone(error)) {
          watcher.stop();
          return failure(`Could not press ${quote(rawKey)}: ${errorMessage(error)}`);
        }
      }
      navigation = await watcher.settle();
    } finally {
      this.acceptDialogs = false;
      refused = await this.submissions.disarm([page, this.page]);
      egressRefused = this.egress.end();
    }
    this.rememberRefused(previewKey, state.document, egressRefused);
    return this.reportAction(`Pressed ${key}${where}`, [], refused, "browser_key", navigation, mark, egressRefused);
  }

  private async scroll(direction: "up" | "down" | "left" | "right", pixels: number): Promise<TBrowserObservation> {
    const mark = this.seq;
    await this.activePage();
    const dx = direction === "left" ? -pixels : direction === "right" ? pixels : 0;
    const dy = direction === "up" ? -pixels : direction === "down" ? pixels : 0;
    const moved = await this.inPage({ command: "scroll", dx, dy });
    // Infinite lists load more when scrolled; give them a moment.
    await this.quiet(AFTER_ACTION_QUIET_MS, { graceMs: 100, windowMs: 300 });
    const state = await this.refresh();
    const scroll = moved.scroll!;
    const vertical = dy !== 0;
    const start = vertical ? scroll.y : scroll.x;
    const size = vertical ? scroll.viewportHeight : scroll.viewportWidth;
    const extent = vertical ? scroll.height : scroll.width;
    const edge = start + size >= extent - 2 ? (vertical ? " (the bottom)" : " (the right edge)") : start <= 0 ? (vertical ? " (the top)" : " (the left edge)") : "";
    const lines = [
      `Scrolled ${direction} ${pixels} px${scroll.container ? ` inside ${scroll.container}` : ""}: the view shows ${Math.round(start)}–${Math.round(start + size)} of ${Math.round(extent)} px${edge}.`,
      ...this.freshLines(state),
    ];
    return this.finish(lines, state, mark);
  }

  private async screenshot(annotated: boolean): Promise<TBrowserObservation> {
    const mark = this.seq;
    const page = await this.activePage();
    const state = await this.refresh();
    let boxes: TInPageElement[] = [];
    let picture: Buffer;
    try {
      if (annotated) boxes = (await this.inPage({ command: "annotate" })).boxes ?? [];
      picture = await page.screenshot({ type: "png", timeout: 15_000, caret: "hide" });
    } finally {
      if (annotated) await this.inPage({ command: "unannotate" }).catch(() => {});
    }
    const lines = [`Screenshot of ${this.pageLine(state)} (${VIEWPORT.width}×${VIEWPORT.height} viewport).`];
    if (annotated) {
      lines.push(
        boxes.length
          ? `Numbered boxes (the numbers are the agent ids for browser_click and browser_type):\n${boxes
              .slice(0, 100)
              .map((box) => `${elementToken(box)}${box.sensitive ? " (needs approval)" : ""}`)
              .join("\n")}`
          : "No interactive elements are visible in this part of the page.",
      );
    }
    const observation = await this.finish(lines, state, mark);
    return { ...observation, image: { mediaType: "image/png", data: picture.toString("base64") } };
  }

  /**
   * For the approval card: what the action would act on and where it would send data, remembered
   * so the approved action can be held to it.
   */
  private async describe(action: "click" | "type" | "key", target: TBrowserTarget | undefined, rawKey: string | undefined): Promise<TBrowserObservation> {
    await this.activePage();
    const host = (url: string) => {
      try {
        return new URL(url).host || url;
      } catch {
        return url;
      }
    };
    const sends = (submission: TBrowserSubmission | undefined, sensitive: boolean) =>
      submission ? ` It ${describeSubmission(submission)}.` : sensitive ? " It names no form or link: where data goes is up to the page's scripts, and a form may then go only to this site." : "";
    // Where the data goes, when that is a site the user has not allowed (the card then offers to allow it).
    const egress = (key: string, state: TInPageResult, destination: string) => {
      if (this.egress.allows(destination)) return "";
      const refused = this.refusedDestinations.get(key);
      const tried = refused && refused.document === state.document ? ` Tried without approval, it made the page send to ${refused.origin}, which was stopped.` : "";
      return `${tried} ${destination} is not among the sites the user allowed in this chat.`;
    };
    if (action === "key") {
      const key = normalizeKey(rawKey ?? "");
      const previewKey = `key:${key}`;
      const { state, focus: focused, framed, focusOrigin } = await this.focused();
      const activates = /(^|\+)(Enter|NumpadEnter)$/.test(key) || key === " ";
      const submission = activates ? toSubmission(focused?.submission) : undefined;
      const destination = this.destinationOf(previewKey, state, submission?.origin ?? focusOrigin);
      this.previews.set(previewKey, { document: state.document, tag: "", label: focused?.label ?? "", submission, destination, pageOrigin: originOf(state.url) });
      const on = focused ? ` in ${focused.role} ${quote(focused.label)}${framed ? " inside a frame" : ""}` : "";
      const consequence = focused?.sensitive ? `; ${focused.sensitive}` : focused?.enterSubmits ? `; ${focused.enterSubmits}` : "";
      const captcha = state.captcha ? ` The page shows ${state.captcha}.` : "";
      return {
        text: `Press ${key || "a key"}${on}${consequence}, on ${this.pageLine(state)}.${sends(submission, Boolean(focused?.sensitive || focused?.enterSubmits))}${egress(previewKey, state, destination)}${captcha}`,
        title: `Press ${key || "a key"} on ${host(state.url)}`,
        url: state.url,
        isError: false,
        destination,
        ...(submission ? { submission } : {}),
      };
    }
    if (!target) return failure("describe needs a target");
    const located = await this.locate(target);
    if (!("locator" in located)) return located;
    await this.unmark(located);
    const { element, state } = located;
    const pageOrigin = originOf(state.url);
    // Typing never submits anything, so only a click is held to a form's or link's destination;
    // both are held to the site the card names (typing hands the text to the page).
    const submission = action === "click" ? toSubmission(element.submission) : undefined;
    const previewKey = action === "click" ? located.key : `type:${located.key}`;
    const destination = this.destinationOf(previewKey, state, submission?.origin ?? pageOrigin);
    this.previews.delete(previewKey);
    this.previews.set(previewKey, { document: state.document, tag: element.tag, label: element.label, submission, destination, pageOrigin });
    if (this.previews.size > 20) this.previews.delete(this.previews.keys().next().value!);
    const verb = action === "click" ? "Click" : "Type into";
    const what = `${element.role} ${quote(element.label || element.tag)}${action === "click" && element.actsOn ? ` (which activates ${element.actsOn})` : ""}`;
    const why = element.sensitive ? ` — ${element.sensitive}` : "";
    const captcha = state.captcha ? ` The page shows ${state.captcha}.` : "";
    return {
      text: `${verb} ${what}${why}, on ${this.pageLine(state)}.${action === "click" ? sends(submission, Boolean(element.sensitive)) : ""}${egress(previewKey, state, destination)}${captcha}`,
      title: `${verb} ${quote(element.label || element.tag)} on ${host(state.url)}`,
      url: state.url,
      isError: false,
      destination,
      ...(submission ? { submission } : {}),
    };
  }
}

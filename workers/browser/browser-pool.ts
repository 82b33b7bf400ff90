import { chromium, type Browser } from "playwright-core";
import type { TBrowserAction, TBrowserEgress, TBrowserObservation, TWorkerHealth } from "@/lib/browser/protocol";
import { allowedOriginSet, originOf } from "@/lib/browser/egress";
import type { TLogger } from "@/lib/observability/logger";
import { navigationUrl } from "@/lib/browser/navigation-url";
import { BrowserSession, navigationNeedsApproval, refusedNavigation, type TSessionSettings } from "./browser-session";

/**
 * One Chromium for the worker and one BrowserContext per agent session. A session id belongs to
 * the user who used it first; another user's request for it is refused. Contexts close when
 * their session ends, after `idleMs` without use, or (least recently used first) when
 * `maxContexts` are open and a new session needs one. A browser that crashes is relaunched; the
 * sessions it took with it are told so on their next action.
 */
export class WorkerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type TPoolOptions = {
  executablePath: string;
  args: string[];
  maxContexts: number;
  idleMs: number;
  session: TSessionSettings;
  log: TLogger;
};

const REMEMBERED_SESSIONS = 10_000;

function remember<T>(map: Map<string, T>, key: string, value: T) {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_SESSIONS) map.delete(map.keys().next().value!);
}

export class BrowserPool {
  private browser: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private readonly sessions = new Map<string, BrowserSession>();
  private readonly opening = new Map<string, Promise<BrowserSession>>();
  private readonly owners = new Map<string, string>();
  private readonly closedBecause = new Map<string, string>();
  private sweeper: NodeJS.Timeout | undefined;
  private stopping = false;
  /** How many times Chromium was launched (1 + relaunches after crashes). */
  launches = 0;

  constructor(private readonly options: TPoolOptions) {}

  async start(): Promise<void> {
    await this.ensureBrowser();
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1_000, Math.min(30_000, this.options.idleMs / 4)));
    this.sweeper.unref();
  }

  health(): TWorkerHealth {
    const browser = this.browser?.isConnected() ? "connected" : this.launching ? "starting" : "down";
    return { status: "ok", browser, contexts: this.sessions.size, maxContexts: this.options.maxContexts };
  }

  openSessions(): number {
    return this.sessions.size;
  }

  private ensureBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return Promise.resolve(this.browser);
    this.launching ??= (async () => {
      const browser = await chromium.launch({
        executablePath: this.options.executablePath,
        args: this.options.args,
        headless: true,
        timeout: 60_000,
        // The worker shuts down on its own terms (graceful shutdown closes the browser last).
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      browser.on("disconnected", () => this.onDisconnected(browser));
      this.browser = browser;
      this.launches += 1;
      return browser;
    })().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private onDisconnected(browser: Browser) {
    if (this.browser !== browser) return;
    this.browser = undefined;
    if (this.stopping) return;
    this.options.log.warn("Chromium went away; relaunching it", { sessions: this.sessions.size });
    for (const [sessionId, session] of this.sessions) {
      remember(this.closedBecause, sessionId, "the browser crashed and was restarted");
      void session.abandon();
    }
    this.sessions.clear();
    this.ensureBrowser().catch((error: unknown) => this.options.log.error("could not relaunch Chromium", { error }));
  }

  /** One action of one session; `egress` is where the session may send data without asking. */
  async act(userId: string, sessionId: string, action: TBrowserAction, egress: TBrowserEgress = { mode: "ask", allowedOrigins: [] }): Promise<TBrowserObservation> {
    if (this.stopping) throw new WorkerError(503, "unavailable", "The browser worker is shutting down.");
    const owner = this.owners.get(sessionId);
    if (owner !== undefined && owner !== userId) throw new WorkerError(403, "forbidden", "This browser session belongs to another user.");
    // Claimed before anything is awaited, so two users cannot race for a new session id.
    if (owner === undefined) remember(this.owners, sessionId, userId);
    let session = this.sessions.get(sessionId);
    if (!session && action.type !== "navigate") {
      const why = this.closedBecause.get(sessionId);
      const text = why
        ? `This session's browser was closed because ${why}; its pages and cookies are gone. Open a page again with browser_navigate.`
        : "No page is open in this session's browser yet. Open one with browser_navigate first.";
      return { text, isError: true };
    }
    if (!session && action.type === "navigate") {
      // A refused address needs no browser context at all. Egress first: the URL guard's DNS lookup
      // would already tell the host name to that site's DNS server.
      const url = navigationUrl(action.url);
      const origin = originOf(url);
      if (origin !== "null" && !action.allowSensitive && egress.mode === "ask" && !allowedOriginSet(egress.allowedOrigins).has(origin)) return navigationNeedsApproval(url, origin);
      const verdict = await this.options.session.guard.check(url);
      if (!verdict.ok) return refusedNavigation(url, verdict);
    }
    session ??= await this.openSession(userId, sessionId);
    const active = session;
    return active.run(() => active.perform(action, egress));
  }

  async closeSession(userId: string, sessionId: string, reason = "its chat session ended"): Promise<boolean> {
    const owner = this.owners.get(sessionId);
    if (owner !== undefined && owner !== userId) throw new WorkerError(403, "forbidden", "This browser session belongs to another user.");
    const session = this.sessions.get(sessionId) ?? (await this.opening.get(sessionId)?.catch(() => undefined));
    if (!session) return false;
    await this.closeWithReason(session, reason);
    return true;
  }

  private openSession(userId: string, sessionId: string): Promise<BrowserSession> {
    const pending = this.opening.get(sessionId);
    if (pending) return pending;
    const opening = (async () => {
      await this.makeRoom(sessionId);
      const browser = await this.ensureBrowser();
      const session = await BrowserSession.open(browser, { userId, sessionId, settings: this.options.session });
      this.sessions.set(sessionId, session);
      this.closedBecause.delete(sessionId);
      return session;
    })().finally(() => this.opening.delete(sessionId));
    this.opening.set(sessionId, opening);
    return opening;
  }

  /** Closes the least recently used idle contexts until a new one fits under the cap. */
  private async makeRoom(sessionId: string) {
    const othersOpening = () => [...this.opening.keys()].filter((id) => id !== sessionId).length;
    while (this.sessions.size + othersOpening() >= this.options.maxContexts) {
      const idle = [...this.sessions.values()].filter((session) => session.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) throw new WorkerError(503, "unavailable", `All ${this.options.maxContexts} browser contexts are busy; try again in a moment.`);
      await this.closeWithReason(idle, `${this.options.maxContexts} other sessions needed the browser more recently (browser.maxContexts)`);
    }
  }

  private async closeWithReason(session: BrowserSession, reason: string) {
    if (this.sessions.get(session.sessionId) === session) this.sessions.delete(session.sessionId);
    remember(this.closedBecause, session.sessionId, reason);
    await session.close();
  }

  private async sweep() {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      if (session.busy === 0 && now - session.lastUsed > this.options.idleMs) {
        await this.closeWithReason(session, `it was not used for ${Math.round(this.options.idleMs / 60_000) || 1} minute(s)`);
      }
    }
  }

  /** Waits up to `graceMs` for running actions, then closes every context and the browser. */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const deadline = Date.now() + graceMs;
    while ([...this.sessions.values()].some((session) => session.busy > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
    this.sessions.clear();
    await this.launching?.catch(() => undefined);
    await this.browser?.close().catch(() => {});
    this.browser = undefined;
  }
}

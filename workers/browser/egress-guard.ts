import type { BrowserContext, Frame, Page, Request } from "playwright-core";
import { allowedOriginSet, originOf, type TEgressPolicy } from "@/lib/browser/egress";

/**
 * Keeps a session's data from leaving for sites its owner did not allow (DESIGN.md decision 8),
 * at the level of requests. The session checks each action before acting (opening, typing on,
 * clicking on or submitting to a site that is not allowed needs an approved call); this guard
 * covers what only shows up on the network, in the worker's request interception, which the page
 * cannot reach:
 *
 *   1. While a click or key press nobody approved for that site runs, the page (or a new tab) may
 *      not open a document from a site that is not allowed: a scripted "Next" button, a GET form,
 *      a link into a new tab. An approved action may also go to the site its card named.
 *   2. Once the agent has typed (or pressed keys) on a site, that site's pages hold the text. From
 *      then on, for as long as the browser context lives, a request from them that carries data
 *      (any method but GET/HEAD, or a query string) or opens a new document may go only to allowed
 *      sites (or to the site of the action the user approved): a page that beacons every keystroke,
 *      or stores it and sends it from its next page, is stopped too. "From them": the requesting
 *      frame, the tab's top document, the request's Origin header, or a tab that has no document of
 *      its own yet (window.open).
 *   3. A site the user approved an action on may keep talking to itself from its own documents.
 *
 * Not covered (see SECURITY.md, "Egress"): GET requests without a query (an image whose path
 * spells the text), redirects (Playwright never shows them to request interception), WebSockets,
 * and what a site the user allowed does with data on its own servers.
 */
export type TEgressRefusal = {
  /** navigation: a new document from that site; data: a request carrying data to it. */
  kind: "navigation" | "data";
  origin: string;
  method: string;
  url: string;
};

type TAction = {
  kind: "navigate" | "click" | "type" | "key";
  /** The site the approval card named, which this action may send to. */
  approvedOrigin?: string;
  /** The tab the action started on, if its top document held typed text then (its unload handlers still run). */
  holdingPage?: Page;
  /** Frames that got a new document during the action: what they do next is not this action. */
  settled: WeakSet<Frame>;
  refused: TEgressRefusal[];
};

const SAFE_METHODS = new Set(["GET", "HEAD"]);

export class EgressGuard {
  private mode: TEgressPolicy["mode"] = "ask";
  private allowed = new Set<string>();
  /** Sites the agent typed text into: their documents may hold it. */
  private readonly holders = new Set<string>();
  /** Sites the user approved an action on. */
  private readonly granted = new Set<string>();
  private action: TAction | undefined;

  constructor(
    context: BrowserContext,
    /** Refusals outside any action (a page sending on its own), for the next observation. */
    private readonly onRefused: (refusal: TEgressRefusal) => void,
  ) {
    context.on("response", (response) => {
      const status = response.status();
      if (!this.action || !response.request().isNavigationRequest() || (status >= 300 && status < 400)) return;
      try {
        this.action.settled.add(response.frame());
      } catch {
        // The first document of a new tab: its frame did not exist yet; it stays guarded until the action ends.
      }
    });
  }

  /** The session's current policy; the app sends it with every action. */
  update(policy: TEgressPolicy): void {
    this.mode = policy.mode;
    this.allowed = allowedOriginSet(policy.allowedOrigins);
  }

  /** No egress rule (browser.egress: allow), or a site the owner allowed. */
  allows(origin: string): boolean {
    return this.mode === "allow" || this.allowed.has(origin);
  }

  get enforcing(): boolean {
    return this.mode !== "allow";
  }

  /** The agent is about to type (or press keys) on this site. */
  markHolding(origin: string): void {
    if (origin !== "null") this.holders.add(origin);
  }

  holds(origin: string): boolean {
    return this.holders.has(origin);
  }

  begin(options: { kind: TAction["kind"]; page: Page; approvedOrigin?: string }): void {
    if (options.approvedOrigin && options.approvedOrigin !== "null") this.granted.add(options.approvedOrigin);
    this.action = {
      kind: options.kind,
      approvedOrigin: options.approvedOrigin,
      holdingPage: this.holders.has(originOf(options.page.url())) ? options.page : undefined,
      settled: new WeakSet(),
      refused: [],
    };
  }

  /** Ends the action's guard; returns what it refused during the action (each URL once). */
  end(): TEgressRefusal[] {
    const refused = this.action?.refused ?? [];
    this.action = undefined;
    return refused.filter((refusal, index) => refused.findIndex((other) => other.method === refusal.method && other.url === refusal.url) === index);
  }

  /** For request interception: a refusal (recorded), or undefined to let the request go. */
  judge(request: Request): TEgressRefusal | undefined {
    if (this.mode === "allow") return undefined;
    const url = request.url();
    const origin = originOf(url);
    if (origin === "null" || this.allowed.has(origin)) return undefined;
    const action = this.action;
    if (action?.approvedOrigin === origin) return undefined;
    let frame: Frame | undefined;
    try {
      frame = request.frame();
    } catch {
      // A service worker's request (they are blocked) or a new tab's first one: no frame to ask.
    }
    const frameOrigin = frame ? originOf(frame.url()) : undefined;
    if (frameOrigin === origin && this.granted.has(origin)) return undefined;
    const method = request.method().toUpperCase();
    const navigation = request.isNavigationRequest();
    const refuse = (kind: TEgressRefusal["kind"]): TEgressRefusal => {
      const refusal = { kind, origin, method, url };
      if (action) action.refused.push(refusal);
      else this.onRefused(refusal);
      return refusal;
    };
    // Rule 1: the page (or a new tab) the click or key press would open on a site that is not allowed.
    // Frames inside the page are left to rule 2: an ad refreshing itself is not the agent's doing.
    const topLevel = !frame || frame.parentFrame() === null;
    if (navigation && topLevel && action && (action.kind === "click" || action.kind === "key") && !(frame && action.settled.has(frame))) return refuse("navigation");
    if (!this.holders.size || !this.fromHolder(request, frame, frameOrigin)) return undefined;
    // Rule 2: the pages of a site that holds typed text send nothing to sites that are not allowed.
    if (navigation) return refuse("navigation");
    if (!SAFE_METHODS.has(method) || request.postDataBuffer() !== null || new URL(url).search.length > 1) return refuse("data");
    return undefined;
  }

  private fromHolder(request: Request, frame: Frame | undefined, frameOrigin: string | undefined): boolean {
    if (!frame || frameOrigin === undefined) return true;
    if (this.holders.has(frameOrigin)) return true;
    const header = request.headers().origin;
    if (header && this.holders.has(originOf(header))) return true;
    let page: Page | undefined;
    try {
      page = frame.page();
    } catch {
      return true;
    }
    if (this.action?.holdingPage === page) return true;
    const top = page.mainFrame().url();
    // A tab with no document of its own yet (window.open) may have been opened by a holding page.
    if (!top || top === "about:blank") return true;
    return this.holders.has(originOf(top));
  }
}

import { randomBytes } from "node:crypto";
import type { BrowserContext, Frame, Page, Request } from "playwright-core";

/**
 * While the agent clicks, types or presses a key, the page may send data somewhere: a form
 * submission, a navigation. The worker judges the element before acting, but the page can still
 * surprise it (a click handler that re-points the form, a label that clicks a submit button, Enter
 * in a form inside a frame), so for the span of one action this guard decides which submissions
 * may leave:
 *
 *   - typing never submits anything;
 *   - an action nobody approved may not POST (or PUT…) anything;
 *   - an approved action may send only to the method and origin the approval card showed; when the
 *     card showed no destination, a POST may go only to the page's own origin.
 *
 * Two layers enforce it. A `submit` listener in every frame (added before the page's own scripts,
 * capture phase on window) cancels a refused submission before the page's handlers can send it with
 * fetch. The worker's request interception refuses navigation requests the rules refuse, which also
 * covers form.submit() (it fires no submit event) and any script the page used to tamper with the
 * listener: the page cannot reach the worker. A frame's guard ends when a new document arrives in it:
 * what that document does on its own (say, a sign-in page posting back) is not this action.
 */
export type TSubmissionRules = {
  mode: "unapproved" | "typing" | "approved";
  /** For approved actions: what the approval card showed (method in capitals, origin). */
  expected?: { method: string; origin: string };
  /** The origin of the page the action started on. */
  pageOrigin: string;
};

export type TSubmissionRefusal = { kind: "needs-approval" | "changed" | "typing"; method: string; url: string; text: string };

/**
 * The rules for one submission: `form` for a submit event, false for a navigation request.
 * Self-contained: it also runs inside the page.
 */
export function judgeSubmission(rules: TSubmissionRules, submission: { method: string; url: string; form: boolean }): TSubmissionRefusal | undefined {
  const method = submission.method.toUpperCase();
  if (method === "DIALOG") return undefined;
  let origin = "null";
  try {
    origin = new URL(submission.url).origin;
  } catch {
    // An unreadable target is judged by its method alone.
  }
  const target = `${method} ${submission.url.split(/[?#]/)[0]}`;
  const refuse = (kind: TSubmissionRefusal["kind"], text: string): TSubmissionRefusal => ({ kind, method, url: submission.url, text });
  if (rules.mode === "typing") {
    return method !== "GET" || submission.form ? refuse("typing", `typing made the page submit a form (${target}); typing never submits anything`) : undefined;
  }
  if (rules.mode === "unapproved") return method !== "GET" ? refuse("needs-approval", `it submits a form (${target})`) : undefined;
  const expected = rules.expected;
  if (expected) {
    // Other pages and frames may load as a side effect; data-bearing requests must go where the card said.
    if (!submission.form && method === "GET" && expected.method !== "GET") return undefined;
    if (method === expected.method && origin === expected.origin) return undefined;
    return refuse("changed", `the page tried to send it to ${method} ${origin} instead of ${expected.method} ${expected.origin}, which the user approved`);
  }
  if (method !== "GET" && origin !== rules.pageOrigin) {
    return refuse("changed", `the page tried to send a form to ${method} ${origin}, but the approval named no destination, which allows only this site (${rules.pageOrigin})`);
  }
  return undefined;
}

const KEY = "xclaw.submission-guard";

/** Runs at document start in every frame, before the page's scripts. Self-contained, like in-page.ts. */
function installListener(secret: string, key: string, judge: typeof judgeSubmission) {
  const store = window as unknown as Record<symbol, unknown>;
  const symbol = Symbol.for(key);
  if (Object.prototype.hasOwnProperty.call(store, symbol)) return;
  // Taken now, before a page script could replace them.
  const preventDefault = Event.prototype.preventDefault;
  const stopImmediatePropagation = Event.prototype.stopImmediatePropagation;
  let rules: TSubmissionRules | undefined;
  let refused: TSubmissionRefusal[] = [];
  window.addEventListener(
    "submit",
    (event) => {
      if (!rules || !(event.target instanceof HTMLFormElement)) return;
      const form = event.target;
      const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
      const method = submitter?.hasAttribute("formmethod") ? submitter.formMethod : form.method;
      const url = submitter?.hasAttribute("formaction") ? submitter.formAction : form.action;
      const refusal = judge(rules, { method, url, form: true });
      if (!refusal) return;
      preventDefault.call(event);
      stopImmediatePropagation.call(event);
      refused.push(refusal);
    },
    true,
  );
  // The page can see this object, but without the secret it can neither arm nor disarm it.
  Object.defineProperty(store, symbol, {
    value: Object.freeze({
      arm: (token: string, next: TSubmissionRules) => {
        if (token !== secret) return;
        rules = next;
        refused = [];
      },
      disarm: (token: string): TSubmissionRefusal[] => {
        if (token !== secret) return [];
        const taken = refused;
        rules = undefined;
        refused = [];
        return taken;
      },
    }),
  });
}

export class SubmissionGuard {
  private readonly secret = randomBytes(16).toString("hex");
  private rules: TSubmissionRules | undefined;
  /** Frames that got a new document during the action; their guard has ended. */
  private settled = new WeakSet<Frame>();
  private refused: TSubmissionRefusal[] = [];

  constructor(context: BrowserContext) {
    context.on("response", (response) => {
      const status = response.status();
      if (!this.rules || !response.request().isNavigationRequest() || (status >= 300 && status < 400)) return;
      try {
        this.settled.add(response.frame());
      } catch {
        // The first document of a new tab: its frame did not exist yet. It stays guarded until the action ends.
      }
    });
  }

  /** For BrowserContext.addInitScript. Bundlers that keep names add `__name(...)` calls; the page gets a stand-in. */
  initScript(): string {
    return `(() => { const __name = (target) => target; (${installListener.toString()})(${JSON.stringify(this.secret)}, ${JSON.stringify(KEY)}, ${judgeSubmission.toString()}); })()`;
  }

  async arm(page: Page, rules: TSubmissionRules): Promise<void> {
    this.rules = rules;
    this.settled = new WeakSet();
    this.refused = [];
    const call = `window[Symbol.for(${JSON.stringify(KEY)})]?.arm(${JSON.stringify(this.secret)}, ${JSON.stringify(rules)})`;
    // A frame that is navigating or gone has no listener to arm; the request check still applies there.
    await Promise.all(page.frames().map((frame) => frame.evaluate(call).catch(() => {})));
  }

  /** For request interception: a refused navigation request (recorded), or undefined to let it go. */
  judgeRequest(request: Request): TSubmissionRefusal | undefined {
    if (!this.rules || !request.isNavigationRequest() || !/^https?:/i.test(request.url())) return undefined;
    let frame: Frame | undefined;
    try {
      frame = request.frame();
    } catch {
      // A new tab's first request comes before its frame: nothing has settled there yet.
    }
    if (frame && this.settled.has(frame)) return undefined;
    const refusal = judgeSubmission(this.rules, { method: request.method(), url: request.url(), form: false });
    if (refusal) this.refused.push(refusal);
    return refusal;
  }

  /** Ends the action's guard and returns what it refused, in the page and on the network. */
  async disarm(pages: Page[]): Promise<TSubmissionRefusal[]> {
    this.rules = undefined;
    const call = `window[Symbol.for(${JSON.stringify(KEY)})]?.disarm(${JSON.stringify(this.secret)}) ?? []`;
    const frames = [...new Set(pages.filter((page) => !page.isClosed()).flatMap((page) => page.frames()))];
    const inPage = await Promise.all(frames.map((frame) => frame.evaluate(call).catch(() => []) as Promise<TSubmissionRefusal[]>));
    const all = [...inPage.flat(), ...this.refused];
    this.refused = [];
    return all.filter((refusal, index) => all.findIndex((other) => other.method === refusal.method && other.url === refusal.url) === index);
  }
}

import { z } from "zod";

/**
 * The HTTP protocol between the app (lib/browser/worker-client.ts) and the browser worker
 * (workers/browser). The app never holds Playwright objects: it sends one action for one
 * (user, session) and gets back an observation for the model.
 *
 *   GET  /v1/health                              → TWorkerHealth
 *   POST /v1/act    TBrowserActRequest           → TBrowserObservation  (with the session's egress policy)
 *   POST /v1/close  { userId, sessionId }        → { closed: boolean }
 *
 * Every request carries `Authorization: Bearer <BROWSER_WORKER_SECRET>`; errors are
 * `{ error: { code, message } }` with 400 / 401 / 403 / 503 / 500.
 */
export const ZBrowserTarget = z
  .strictObject({
    agentId: z.int().min(1).max(10_000_000).optional(),
    selector: z.string().min(1).max(2_000).optional(),
  })
  .refine((target) => (target.agentId === undefined) !== (target.selector === undefined), { message: "give either agentId or selector" });

export type TBrowserTarget = z.infer<typeof ZBrowserTarget>;

export const ZBrowserAction = z.discriminatedUnion("type", [
  /** `allowSensitive`: opening a site that is not allowed was judged by the approval policy (see `egress`). */
  z.strictObject({ type: z.literal("navigate"), url: z.string().min(1).max(8_192), allowSensitive: z.boolean().optional() }),
  z.strictObject({ type: z.literal("content"), mode: z.enum(["text", "html"]), offset: z.int().min(0).max(100_000_000) }),
  /** `allowSensitive`: the approval policy has judged this call as one that needs approval (it asked, or an admin allowed it). */
  z.strictObject({ type: z.literal("click"), target: ZBrowserTarget, allowSensitive: z.boolean() }),
  z.strictObject({ type: z.literal("type"), target: ZBrowserTarget, text: z.string().max(20_000), allowSensitive: z.boolean() }),
  z.strictObject({ type: z.literal("key"), key: z.string().min(1).max(60), allowSensitive: z.boolean() }),
  z.strictObject({ type: z.literal("scroll"), direction: z.enum(["up", "down", "left", "right"]), pixels: z.int().min(1).max(100_000) }),
  z.strictObject({ type: z.literal("screenshot"), annotated: z.boolean() }),
  /** Describes what a click / key / typing would act on, for the approval card; changes nothing on the page. */
  z.strictObject({ type: z.literal("describe"), action: z.enum(["click", "type", "key"]), target: ZBrowserTarget.optional(), key: z.string().max(60).optional() }),
]);

export type TBrowserAction = z.infer<typeof ZBrowserAction>;

/**
 * Where this session may send data without asking (lib/browser/egress.ts): the sites its owner
 * allowed, or no rule at all (`browser.egress: allow`). Absent means "nothing is allowed yet".
 */
export const ZBrowserEgress = z.strictObject({
  mode: z.enum(["ask", "allow"]),
  allowedOrigins: z.array(z.string().min(1).max(2_048)).max(1_000),
});

export const ZBrowserActRequest = z.strictObject({
  userId: z.string().min(1).max(200),
  sessionId: z.string().min(1).max(200),
  action: ZBrowserAction,
  egress: ZBrowserEgress.default({ mode: "ask", allowedOrigins: [] }),
});

export type TBrowserActRequest = z.infer<typeof ZBrowserActRequest>;

export type TBrowserEgress = z.infer<typeof ZBrowserEgress>;

export const ZBrowserCloseRequest = z.strictObject({ userId: z.string().min(1).max(200), sessionId: z.string().min(1).max(200) });

/** Where an action would send data: a form's submission or a link's navigation (origin only, no path or query). */
export type TBrowserSubmission = { kind: "form" | "link"; method: string; origin: string };

/** "submits the form to https://shop.example with POST", "opens https://example.com", for people and the model alike. */
export function describeSubmission(submission: TBrowserSubmission): string {
  return submission.kind === "link" ? `opens ${submission.origin}` : `submits the form to ${submission.origin} with ${submission.method}`;
}

export type TBrowserObservation = {
  /** What the model reads. */
  text: string;
  image?: { mediaType: "image/png"; data: string };
  isError: boolean;
  /** Set when the action was not done because the user has to approve it first. */
  needsApproval?: { reason: string };
  /** The page shows a CAPTCHA: a person has to deal with it. */
  captcha?: boolean;
  /** For the approval card (describe). */
  title?: string;
  url?: string;
  /** For the approval card (describe): where the action would send data, if the page says so. The worker holds an approved action to it. */
  submission?: TBrowserSubmission;
  /**
   * For the approval card (describe): the site (origin) the action sends data to: the form's or
   * link's, the one the page tried to reach when this action was last refused, or the page's own
   * (typing and clicking hand data to the page). An approved action may send there.
   */
  destination?: string;
  /** Content only: characters of the rendered HTML and of the distilled text. */
  stats?: { rawCharacters: number; distilledCharacters: number };
};

export type TWorkerHealth = { status: "ok"; browser: "connected" | "starting" | "down"; contexts: number; maxContexts: number };

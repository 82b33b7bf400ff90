import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import type { TContentPart } from "@/lib/providers/types";
import { defineTool, type TRiskContext, type TTool, type TToolContext, type TToolPreview, type TToolResult, type TToolRisk } from "@/lib/tools/registry";
import { allowedOriginSet, guardRefusal, originOf, siteName, type TEgressMode } from "./egress";
import { navigationUrl } from "./navigation-url";
import { describeSubmission, type TBrowserAction, type TBrowserEgress, type TBrowserObservation, type TBrowserTarget } from "./protocol";
import { selectorLooksSensitive } from "./sensitive-actions";
import type { BrowserWorkerClient } from "./worker-client";

/**
 * The eight browser tools. They run in the browser worker, in a browser context of this chat
 * session alone. Looking and scrolling are read-risk and run freely; so do opening, typing and
 * ordinary clicks on the sites the session's owner allowed (`context.allowedOrigins`). A click
 * (or Enter) that submits, pays, deletes, confirms or purchases, anything on a page with a
 * CAPTCHA, and opening, typing, clicking or submitting on a site that is not allowed (egress,
 * DESIGN.md decision 8, unless `browser.egress: allow`) has to be marked `sensitive` and then goes
 * through the approval policy. The card names the site the data goes to (`preview.origin`), so
 * the owner can allow it for the rest of the chat. A destination the worker's SSRF guard refuses
 * whatever is approved (loopback, link-local, private) is refused in the preview, before any card.
 *
 * Why a flag in the arguments instead of a lookup: riskOf is synchronous and sees only the
 * arguments, and the registry is shared by all sessions. The flag cannot be used to skip an
 * approval: the worker gets the allowed sites with every action, inspects the real element and
 * page right before acting, and refuses a sensitive action that was not marked, telling the model
 * to mark it, which makes the policy ask.
 */
const ZAgentId = z
  .union([z.int().min(1).max(10_000_000), z.string().regex(/^\d{1,8}$/)])
  .optional()
  .describe("The element's number, from browser_content or browser_screenshot_annotated (preferred over a selector)");
const ZSelector = z.string().min(1).max(1_000).optional().describe("A CSS selector (or Playwright selector such as text=Sign in), when the element has no number");
const ZSensitive = z
  .boolean()
  .optional()
  .describe(
    'true when this submits a form, pays, deletes, confirms or purchases, acts on a page with a CAPTCHA (elements marked "needs approval"), or sends anything (an address, typed text, a click) to a site that is not allowed in this chat; the user is asked first',
  );

const hasOneTarget = (input: { agent_id?: unknown; selector?: unknown }) => (input.agent_id === undefined) !== (input.selector === undefined);
const ONE_TARGET = { message: "Give either agent_id or selector (exactly one of them)." };

function targetOf(input: { agent_id?: number | string; selector?: string }): TBrowserTarget {
  return input.agent_id !== undefined ? { agentId: Number(input.agent_id) } : { selector: input.selector! };
}

function toResult(observation: TBrowserObservation): TToolResult {
  const content: TContentPart[] = [{ type: "text", text: observation.text }];
  if (observation.image) content.push({ type: "image", mediaType: observation.image.mediaType, data: observation.image.data });
  return { content, isError: observation.isError };
}

function describeTarget(input: { agent_id?: number | string; selector?: string }): string {
  return input.agent_id !== undefined ? `element ${input.agent_id}` : `the element matching ${JSON.stringify(input.selector)}`;
}

export type TBrowserToolOptions = {
  /** browser.egress; read from xclaw.yaml when absent. */
  egress?: TEgressMode;
  /** browser.allowedPrivateHosts (the worker's SSRF allow-list); read from xclaw.yaml when absent. */
  allowedPrivateHosts?: readonly string[];
};

export function createBrowserTools(client: BrowserWorkerClient, options: TBrowserToolOptions = {}): TTool[] {
  // Read per call, not per registry: the registry is shared by every session.
  const egressOf = (context: TToolContext): TBrowserEgress => ({ mode: options.egress ?? getBehaviourConfig().browser.egress, allowedOrigins: [...(context.allowedOrigins ?? [])] });
  const act = async (context: TToolContext, action: TBrowserAction) =>
    toResult(await client.act({ userId: context.userId, sessionId: context.sessionId, action, egress: egressOf(context), signal: context.signal }));
  /** The site to offer "always allow" for: one the session does not allow yet. */
  const newSite = (context: TToolContext, origin: string | undefined): string | undefined => {
    const egress = egressOf(context);
    if (!origin || origin === "null" || egress.mode === "allow" || allowedOriginSet(egress.allowedOrigins).has(origin)) return undefined;
    return origin;
  };

  /** Why the worker's SSRF guard will refuse to send to `destination` whatever is approved (see guardRefusal). */
  const refusalOf = (destination: string): string | undefined =>
    destination === "null" ? undefined : guardRefusal(destination, options.allowedPrivateHosts ?? getBehaviourConfig().browser.allowedPrivateHosts);

  // The card names where the action would send data; the worker holds the approved action to it.
  const previewOf = async (context: TToolContext, action: TBrowserAction & { type: "describe" }, fallback: string): Promise<TToolPreview> => {
    const observation = await client.act({ userId: context.userId, sessionId: context.sessionId, action, egress: egressOf(context), signal: context.signal });
    if (observation.isError) return { title: fallback, detail: observation.text };
    const refusal = observation.destination ? refusalOf(observation.destination) : undefined;
    if (refusal) {
      return { title: fallback, refused: `Refused: this would send data to ${observation.destination}, and ${refusal}. The browser sends data to public web sites only, so there is nothing to approve.` };
    }
    const title = observation.title ?? fallback;
    const origin = newSite(context, observation.destination);
    return { title: observation.submission ? `${title} (${describeSubmission(observation.submission)})` : title, detail: observation.text, ...(origin ? { origin } : {}) };
  };

  const flagRisk = (input: { sensitive?: boolean }): TToolRisk => (input.sensitive ? "external" : "read");
  // Opening a site the chat does not allow yet asks at once, instead of after a refused round trip;
  // the worker still refuses an unapproved one (the backstop).
  const navigateRisk = (input: { url: string; sensitive?: boolean }, context: TRiskContext): TToolRisk => {
    if (input.sensitive) return "external";
    const mode = options.egress ?? getBehaviourConfig().browser.egress;
    const origin = originOf(navigationUrl(input.url));
    return mode === "ask" && origin !== "null" && !allowedOriginSet(context.allowedOrigins).has(origin) ? "external" : "read";
  };

  const navigate = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_navigate",
    description:
      'Open a web page in this chat\'s own browser (JavaScript runs; cookies stay in this chat). Waits for the page to settle and dismisses cookie banners. Returns the title and URL; then read the page with browser_content. Private, loopback and cloud-metadata addresses are refused. Opening a site that is not allowed in this chat needs "sensitive": true: the user is asked first and may allow the site for the rest of the chat.',
    input: z.object({ url: z.string().min(1).max(8_192).describe("The full address, e.g. https://example.com/pricing"), sensitive: ZSensitive }),
    risk: "read",
    riskOf: navigateRisk,
    // The whole address is shown: whatever is in it (a query, a fragment) goes to that site.
    preview: async ({ url }, context) => {
      const address = navigationUrl(url);
      const origin = originOf(address);
      const refusal = refusalOf(origin);
      if (refusal) return { title: `Open ${siteName(origin)}`, refused: `Refused to open ${address}: ${refusal}. The browser opens public web sites only, so there is nothing to approve.` };
      const site = newSite(context, origin);
      const where = origin === "null" ? "" : site ? `\nEverything in this address, including anything after "?" or "#", goes to ${origin} (its server and its pages' scripts), a site not yet allowed in this chat.` : `\n${origin} is allowed in this chat.`;
      return { title: `Open ${origin === "null" ? "a page" : siteName(origin)}`, detail: `Opens ${address}${where}`, ...(site ? { origin: site } : {}) };
    },
    // A call judged external ran only because the policy allowed it or the user approved it.
    execute: ({ url, sensitive }, context) =>
      act(context, { type: "navigate", url, allowSensitive: navigateRisk({ url, sensitive }, { allowedOrigins: context.allowedOrigins ?? [] }) === "external" }),
  });

  const content = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_content",
    description:
      'Read the current page, distilled: text with every interactive element as [number role "label"], or simplified HTML with data-agent-id attributes. Use the numbers with browser_click and browser_type. Long pages come in parts; the end of each part says which offset reads on.',
    input: z.object({
      mode: z.enum(["text", "html"]).optional().describe("text (default, shortest) or html (keeps the structure: forms, tables, lists)"),
      offset: z.int().min(0).max(100_000_000).optional().describe("Character offset to continue from, as given at the end of the previous part"),
    }),
    risk: "read",
    execute: ({ mode, offset }, context) => act(context, { type: "content", mode: mode ?? "text", offset: offset ?? 0 }),
  });

  const clickRisk = (input: { selector?: string; sensitive?: boolean }): TToolRisk => (input.sensitive || (input.selector !== undefined && selectorLooksSensitive(input.selector)) ? "external" : "read");
  const click = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_click",
    description:
      'Click an element: agent_id (its number) or a selector. Waits for a navigation if the click starts one; an element covered by another is clicked through the DOM. Set sensitive: true for anything that submits, pays, deletes, confirms or purchases ("needs approval" in the listing), and for clicks on or into sites not allowed in this chat; the user approves it first. Unmarked sensitive clicks are refused.',
    input: z.object({ agent_id: ZAgentId, selector: ZSelector, sensitive: ZSensitive }).refine(hasOneTarget, ONE_TARGET),
    risk: "read",
    riskOf: clickRisk,
    preview: (input, context) => previewOf(context, { type: "describe", action: "click", target: targetOf(input) }, `Click ${describeTarget(input)}`),
    execute: (input, context) => act(context, { type: "click", target: targetOf(input), allowSensitive: clickRisk(input) === "external" }),
  });

  const type = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_type",
    description:
      'Replace the text of an input, text area or editable element (agent_id or selector), or choose an option of a select by its label. Autocomplete fields get real key presses, so their suggestions appear; the result lists new elements such as options. Typing never clicks or submits: line breaks in one-line fields become spaces (press Enter with browser_key), and anything that is not a field is refused. Typing counts as sending the text to the page: on a site not allowed in this chat it needs "sensitive": true (the user is asked).',
    input: z.object({ agent_id: ZAgentId, selector: ZSelector, text: z.string().max(20_000), sensitive: ZSensitive }).refine(hasOneTarget, ONE_TARGET),
    risk: "read",
    riskOf: flagRisk,
    preview: (input, context) => previewOf(context, { type: "describe", action: "type", target: targetOf(input) }, `Type into ${describeTarget(input)}`),
    execute: (input, context) => act(context, { type: "type", target: targetOf(input), text: input.text, allowSensitive: flagRisk(input) === "external" }),
  });

  const key = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_key",
    description:
      "Press a key on the focused element: Enter (pick a suggestion, submit), Escape (close a popup), Tab, ArrowDown / ArrowUp (move through options), PageDown, Backspace, or a combination such as Control+A. Enter that would submit a form, and any key on a site not allowed in this chat, needs sensitive: true.",
    input: z.object({ key: z.string().min(1).max(60).describe("A key name such as Enter, Escape, Tab, ArrowDown, or a combination such as Control+A"), sensitive: ZSensitive }),
    risk: "read",
    riskOf: flagRisk,
    preview: (input, context) => previewOf(context, { type: "describe", action: "key", key: input.key }, `Press ${input.key}`),
    execute: (input, context) => act(context, { type: "key", key: input.key, allowSensitive: flagRisk(input) === "external" }),
  });

  const scroll = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_scroll",
    description: "Scroll the page (or its main scrolling panel). Returns the new position and the elements that appeared, e.g. more results of an endless list.",
    input: z.object({ direction: z.enum(["up", "down", "left", "right"]), pixels: z.int().min(1).max(20_000).optional().describe("Default 600 (most of the 800 px viewport)") }),
    risk: "read",
    execute: ({ direction, pixels }, context) => act(context, { type: "scroll", direction, pixels: pixels ?? 600 }),
  });

  const screenshot = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_screenshot",
    description: "A picture of the visible part of the page (1280×800). Costs more than browser_content; use it for layout, charts and images.",
    input: z.object({}),
    risk: "read",
    execute: (_input, context) => act(context, { type: "screenshot", annotated: false }),
  });

  const annotated = defineTool({
    // One page per session: browser calls run one after another, in the order the model gave.
    sequential: true,
    name: "browser_screenshot_annotated",
    description: "A screenshot with a numbered box on every visible interactive element; the numbers are the agent_id values for browser_click and browser_type.",
    input: z.object({}),
    risk: "read",
    execute: (_input, context) => act(context, { type: "screenshot", annotated: true }),
  });

  return [navigate, content, click, type, key, scroll, screenshot, annotated];
}

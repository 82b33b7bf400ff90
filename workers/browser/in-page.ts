import type { Frame, Page } from "playwright-core";

/**
 * The code that runs inside the page. Playwright sends a function's source text to the browser,
 * so `inPageRuntime` must be self-contained: no imports, no module-level helpers, nothing from
 * Node. Everything the worker needs from the DOM goes through this one function: numbering the
 * interactive elements (`data-agent-id`), distilling the page, describing an element, finding
 * popups to dismiss, drawing the numbered boxes, scrolling.
 *
 * Ids are stable within a document: an element keeps its number as long as it exists, new ones get
 * the next number, and a number is never given to another element of the same document. So an id
 * the model saw a moment ago either still means the same element or is reported missing.
 */
export type TInPageElement = {
  id: number;
  role: string;
  tag: string;
  label: string;
  type?: string;
  value?: string;
  options?: string[];
  href?: string;
  checked?: boolean;
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  /** Why acting on it needs approval, if it does. */
  sensitive?: string;
  /** Only for the target of an action: what a click on it really activates, when that is another element (`button "Pay"`). */
  actsOn?: string;
  /** Only for the target of an action: where a click on it sends data (a form's submission, a link). */
  submission?: TInPageSubmission;
  /** Only for the target of an action: how text can be typed into it; absent when it is not editable. */
  editable?: "fill" | "keys" | "select" | "read-only";
};

/** Where an action sends the page: method (GET, POST) and absolute URL of a form's action or a link. */
export type TInPageSubmission = { kind: "form" | "link"; method: string; url: string };

export type TInPageFocus = {
  id?: number;
  role: string;
  label: string;
  sensitive?: string;
  enterSubmits?: string;
  /** Enter (or Space) here would send data there. */
  submission?: TInPageSubmission;
  /** The focus is inside a frame; look there. */
  frame?: boolean;
};

export type TInPageCommand =
  | { command: "refresh" }
  /** Only the focus, without numbering anything (used inside frames). */
  | { command: "focus" }
  | { command: "distill"; mode: "text" | "html" }
  | { command: "describe"; agentId?: number; marker?: string }
  | { command: "hit-test"; agentId?: number; marker?: string }
  | { command: "dismissals" }
  | { command: "annotate" }
  | { command: "unannotate" }
  | { command: "scroll"; dx: number; dy: number };

export type TInPageRequest = TInPageCommand & { sensitivePattern: string };

export type TInPageResult = {
  url: string;
  title: string;
  /** A random token per document: changes on every navigation to a new document. */
  document: string;
  total: number;
  /** Elements numbered for the first time by this call (at most 40 of them). */
  fresh: TInPageElement[];
  freshCount: number;
  captcha?: string;
  focus?: TInPageFocus;
  /** document.hasFocus(): this frame holds the keyboard focus (or one of its frames does). */
  hasFocus?: boolean;
  element?: TInPageElement;
  missing?: boolean;
  obstructedBy?: string;
  distilled?: string;
  rawCharacters?: number;
  dismiss?: { id: number; label: string }[];
  boxes?: TInPageElement[];
  scroll?: { x: number; y: number; width: number; height: number; viewportWidth: number; viewportHeight: number; container?: string };
};

export function inPageRuntime(request: TInPageRequest): TInPageResult {
  const ID = "data-agent-id";
  const COUNTER = Symbol.for("xclaw.agent-id.counter");
  const DOCUMENT_TOKEN = Symbol.for("xclaw.document-token");
  const OVERLAY = "xclaw-overlay";
  const INTERACTIVE = [
    "a[href]",
    "button",
    "input:not([type=hidden])",
    "select",
    "textarea",
    "summary",
    "[contenteditable=''], [contenteditable='true']",
    ...["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "gridcell", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem"].map(
      (role) => `[role='${role}']`,
    ),
  ].join(",");
  const sensitiveWords = new RegExp(request.sensitivePattern, "i");
  const documentState = document as unknown as Record<symbol, unknown>;

  const clean = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();
  const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

  const roots: (Document | ShadowRoot)[] = [document];
  for (let index = 0; index < roots.length; index++) {
    for (const element of Array.from(roots[index]!.querySelectorAll("*"))) if (element.shadowRoot) roots.push(element.shadowRoot);
  }
  const queryAll = (selector: string) => roots.flatMap((root) => Array.from(root.querySelectorAll(selector)));
  const isVisible = (element: Element) =>
    typeof element.checkVisibility !== "function" || element.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true } as CheckVisibilityOptions);
  const isRendered = (element: Element) => element.getClientRects().length > 0 && isVisible(element);

  const roleOf = (element: Element): string => {
    const explicit = element.getAttribute("role")?.trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = element.tagName;
    if (tag === "A") return "link";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return (element as HTMLSelectElement).multiple ? "listbox" : "select";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") {
      const type = (element as HTMLInputElement).type;
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox" || type === "radio" || type === "file" || type === "color") return type;
      if (type === "range") return "slider";
      if (type === "search") return "searchbox";
      return "textbox";
    }
    if ((element as HTMLElement).isContentEditable) return "textbox";
    return tag.toLowerCase();
  };

  // The text of a <label> without the text of the control inside it (a select's options, say).
  const labelText = (label: Element, control: Element) => {
    let text = "";
    const visit = (node: Node) => {
      if (node === control) return;
      if (node.nodeType === Node.TEXT_NODE) text += node.textContent ?? "";
      else node.childNodes.forEach(visit);
    };
    visit(label);
    return clean(text);
  };

  const textOf = (element: Element) => clean((element as HTMLElement).innerText ?? element.textContent);

  const labelOf = (element: Element): string => {
    const aria = clean(element.getAttribute("aria-label"));
    if (aria) return clip(aria, 100);
    const labelledBy = element.getAttribute("aria-labelledby");
    if (labelledBy) {
      const text = clean(labelledBy.split(/\s+/).map((id) => element.ownerDocument.getElementById(id)?.textContent ?? "").join(" "));
      if (text) return clip(text, 100);
    }
    const tag = element.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      const input = element as HTMLInputElement;
      if (tag === "INPUT" && ["button", "submit", "reset"].includes(input.type)) {
        return clip(clean(input.value) || (input.type === "reset" ? "Reset" : input.type === "submit" ? "Submit" : ""), 100);
      }
      if (tag === "INPUT" && input.type === "image") return clip(clean(input.alt) || "Submit", 100);
      const labels = input.labels ? Array.from(input.labels).map((label) => labelText(label, element)).filter(Boolean) : [];
      if (labels.length) return clip(labels.join(" "), 100);
      return clip(clean(input.getAttribute("placeholder")) || clean(input.title) || clean(input.name), 100);
    }
    const text = textOf(element);
    if (text) return clip(text, 100);
    const image = element.querySelector("img[alt]");
    const fallback = clean(image?.getAttribute("alt")) || clean(element.getAttribute("title")) || clean(element.querySelector("svg title")?.textContent);
    return clip(fallback, 100);
  };

  const submittedForm = (element: Element): HTMLFormElement | null => {
    if (element.tagName === "BUTTON") return (element as HTMLButtonElement).type === "submit" ? (element as HTMLButtonElement).form : null;
    if (element.tagName === "INPUT") {
      const input = element as HTMLInputElement;
      return input.type === "submit" || input.type === "image" ? input.form : null;
    }
    return null;
  };
  // The IDL attributes, as the browser will use them: an invalid method is GET, a relative action is resolved.
  const methodOf = (control: Element | undefined, form: HTMLFormElement) => (control?.hasAttribute("formmethod") ? (control as HTMLButtonElement).formMethod : form.method).toLowerCase();
  const actionOf = (control: Element | undefined, form: HTMLFormElement) => (control?.hasAttribute("formaction") ? (control as HTMLButtonElement).formAction : form.action);
  const formSubmission = (control: Element | undefined, form: HTMLFormElement): TInPageSubmission | undefined => {
    const method = methodOf(control, form);
    return method === "dialog" ? undefined : { kind: "form", method: method.toUpperCase(), url: actionOf(control, form) };
  };

  // Words count on things that act (buttons, links, options); a checkbox saying "send me the
  // newsletter" only changes the form.
  const ACTING_ROLES = new Set(["button", "link", "menuitem", "option", "gridcell", "treeitem", "tab"]);
  const sensitivityOf = (element: Element, label: string): string | undefined => {
    const words = !ACTING_ROLES.has(roleOf(element)) ? "" : [label, element.id, element.getAttribute("name"), element.getAttribute("title")].map(clean).filter(Boolean).join(" | ");
    const match = sensitiveWords.exec(words);
    if (match) return `it is labelled "${clip(label || clean(match[0]), 60)}"`;
    const form = submittedForm(element);
    if (form && methodOf(element, form) === "post") return `it submits a form (POST ${actionOf(element, form)})`;
    return undefined;
  };

  // What a click on an element can set off besides the element itself: the interactive elements
  // around it (a <span> inside a button clicks the button; a <div role=button> runs its handlers)
  // and the control of a <label>. Judging all of them errs on the side of asking.
  const composedParent = (node: Element): Element | null => node.parentElement ?? ((node.parentNode as ShadowRoot | null)?.host || null);
  const actingChain = (element: Element): Element[] => {
    const chain: Element[] = [element];
    const add = (node: Element | null | undefined) => {
      if (node && !chain.includes(node)) chain.push(node);
    };
    for (let node: Element | null = element; node; node = composedParent(node)) {
      if (node.matches(INTERACTIVE)) add(node);
      if (node.tagName === "LABEL") add((node as HTMLLabelElement).control);
    }
    return chain;
  };
  const describeBriefly = (element: Element) => `${roleOf(element)} "${clip(labelOf(element) || element.tagName.toLowerCase(), 60)}"`;
  const linkSubmission = (element: Element): TInPageSubmission | undefined => {
    if (!(element instanceof HTMLAnchorElement || element instanceof HTMLAreaElement) || !element.hasAttribute("href")) return undefined;
    return /^https?:/i.test(element.href) ? { kind: "link", method: "GET", url: element.href } : undefined;
  };
  const actionFacts = (element: Element, label: string): Pick<TInPageElement, "sensitive" | "actsOn" | "submission"> => {
    const facts: Pick<TInPageElement, "sensitive" | "actsOn" | "submission"> = {};
    for (const node of actingChain(element)) {
      const reason = sensitivityOf(node, node === element ? label : labelOf(node));
      if (!facts.sensitive && reason) facts.sensitive = node === element ? reason : `it activates ${describeBriefly(node)}, which ${reason.replace(/^it /, "")}`;
      const form = submittedForm(node);
      const submission = form ? formSubmission(node, form) : linkSubmission(node);
      if (!facts.submission && submission) {
        facts.submission = submission;
        if (node !== element) facts.actsOn = describeBriefly(node);
      }
    }
    return facts;
  };
  const TEXT_INPUT_TYPES = new Set(["text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "week", "time"]);
  const editableOf = (element: Element): TInPageElement["editable"] => {
    // Autocomplete widgets listen for key events, which filling a value does not send.
    const wantsKeys = ["combobox", "searchbox"].includes(roleOf(element)) || element.hasAttribute("list") || element.hasAttribute("aria-autocomplete");
    if (element.tagName === "SELECT") return "select";
    if (element.tagName === "TEXTAREA") return (element as HTMLTextAreaElement).readOnly ? "read-only" : "fill";
    if (element.tagName === "INPUT") {
      const input = element as HTMLInputElement;
      if (!TEXT_INPUT_TYPES.has(input.type)) return undefined;
      return input.readOnly ? "read-only" : wantsKeys ? "keys" : "fill";
    }
    if ((element as HTMLElement).isContentEditable) return wantsKeys ? "keys" : "fill";
    return undefined;
  };

  const summarize = (element: Element, id: number, options: { acting?: boolean } = {}): TInPageElement => {
    const label = labelOf(element);
    const item: TInPageElement = { id, role: roleOf(element), tag: element.tagName.toLowerCase(), label };
    const tag = element.tagName;
    if (tag === "INPUT") {
      const input = element as HTMLInputElement;
      item.type = input.type;
      if (input.type === "checkbox" || input.type === "radio") item.checked = input.checked;
      else if (!["button", "submit", "reset", "image", "file"].includes(input.type)) item.value = input.type === "password" ? (input.value ? "••••" : "") : clip(input.value, 200);
    } else if (tag === "TEXTAREA") {
      item.value = clip((element as HTMLTextAreaElement).value, 200);
    } else if (tag === "SELECT") {
      const select = element as HTMLSelectElement;
      item.value = clean(select.selectedOptions[0]?.text);
      item.options = Array.from(select.options)
        .slice(0, 30)
        .map((option) => clip(clean(option.text), 60));
      if (select.options.length > 30) item.options.push(`… ${select.options.length - 30} more`);
    } else if (tag === "A") {
      item.href = (element as HTMLAnchorElement).href;
    } else if ((element as HTMLElement).isContentEditable) {
      item.value = clip(textOf(element), 200);
    }
    const ariaChecked = element.getAttribute("aria-checked");
    if (ariaChecked === "true" || ariaChecked === "false") item.checked = ariaChecked === "true";
    if (element.getAttribute("aria-selected") === "true") item.selected = true;
    const expanded = element.getAttribute("aria-expanded");
    if (expanded === "true" || expanded === "false") item.expanded = expanded === "true";
    if ((element as HTMLButtonElement).disabled || element.getAttribute("aria-disabled") === "true") item.disabled = true;
    if (options.acting) {
      Object.assign(item, actionFacts(element, label));
      const editable = editableOf(element);
      if (editable) item.editable = editable;
    } else {
      const sensitive = sensitivityOf(element, label);
      if (sensitive) item.sensitive = sensitive;
    }
    return item;
  };

  // Numbering: keep the ids that are still valid, give new elements the next numbers, and take
  // the attribute off everything else (stale elements, or ids a page wrote itself).
  if (!documentState[DOCUMENT_TOKEN]) documentState[DOCUMENT_TOKEN] = Math.random().toString(36).slice(2);
  let counter = Number(documentState[COUNTER] ?? 0);
  const byId = new Map<number, Element>();
  const members = new Set<Element>();
  const freshElements: Element[] = [];
  const numbering = request.command !== "focus";
  for (const element of numbering ? queryAll(INTERACTIVE) : []) {
    if (element.closest(OVERLAY) || !isRendered(element)) continue;
    members.add(element);
    const current = Number(element.getAttribute(ID));
    if (Number.isInteger(current) && current >= 1 && current <= counter && !byId.has(current)) byId.set(current, element);
    else freshElements.push(element);
  }
  for (const element of freshElements) {
    counter += 1;
    element.setAttribute(ID, String(counter));
    byId.set(counter, element);
  }
  documentState[COUNTER] = counter;
  if (numbering) for (const element of queryAll(`[${ID}]`)) if (!members.has(element)) element.removeAttribute(ID);
  const idOf = new Map<Element, number>();
  for (const [id, element] of byId) idOf.set(element, id);

  const captcha = (): string | undefined => {
    const widgets: [string, string][] = [
      ["iframe[src*='recaptcha' i]:not([src*='size=invisible']), .g-recaptcha", "a reCAPTCHA"],
      ["iframe[src*='hcaptcha' i], .h-captcha", "an hCaptcha"],
      ["iframe[src*='challenges.cloudflare.com' i], .cf-turnstile, #challenge-form, #cf-challenge-running", "a Cloudflare challenge"],
      ["[data-sitekey]", "a CAPTCHA widget"],
      ["[id*='captcha' i], [class*='captcha' i], [name*='captcha' i], img[alt*='captcha' i]", "a CAPTCHA"],
    ];
    for (const [selector, name] of widgets) {
      // The badge of an invisible reCAPTCHA asks nothing of anyone.
      if (queryAll(selector).some((element) => isRendered(element) && !element.closest(".grecaptcha-badge"))) return name;
    }
    const text = (document.body?.innerText ?? "").slice(0, 20_000);
    if (/verify (that )?you are (a )?human|i'?m not a robot|are you a robot|请完成安全验证|人机验证/i.test(text)) return "a human verification";
    return undefined;
  };

  const deepActive = (): Element | null => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active;
  };

  const focus = (): TInPageFocus | undefined => {
    const active = deepActive();
    if (!active || active === document.body || active === document.documentElement) return undefined;
    const label = labelOf(active);
    const result: TInPageFocus = { role: roleOf(active), label };
    const id = idOf.get(active);
    if (id !== undefined) result.id = id;
    // The keyboard is inside a frame; the worker asks that frame.
    if (active.tagName === "IFRAME" || active.tagName === "FRAME") return { ...result, frame: true };
    // Enter or Space on a focused control activates it, like a click.
    const facts = actionFacts(active, label);
    if (facts.sensitive) result.sensitive = facts.sensitive;
    if (facts.submission) result.submission = facts.submission;
    const input = active as HTMLInputElement;
    if (!facts.sensitive && active.tagName === "INPUT" && !["button", "submit", "reset", "image", "checkbox", "radio", "file"].includes(input.type) && input.form) {
      // Enter in a text field submits its form ("implicit submission"), as its first submit button would.
      const form = input.form;
      const submitter = Array.from(form.elements).find((control) => submittedForm(control) === form);
      const submitterLabel = submitter ? labelOf(submitter) : "";
      const submitterSensitive = submitter ? sensitivityOf(submitter, submitterLabel) : undefined;
      const submission = formSubmission(submitter, form);
      if (submission) result.submission = submission;
      if (submitterSensitive) result.enterSubmits = `Enter submits the form as "${submitterLabel}" would, and ${submitterSensitive}`;
      else if (submission?.method === "POST") result.enterSubmits = `Enter submits a form (POST ${submission.url})`;
    }
    return result;
  };

  const result: TInPageResult = {
    hasFocus: document.hasFocus(),
    url: location.href,
    title: clean(document.title),
    document: String(documentState[DOCUMENT_TOKEN]),
    total: byId.size,
    fresh: freshElements.slice(0, 40).map((element) => summarize(element, idOf.get(element)!)),
    freshCount: freshElements.length,
  };
  const captchaName = captcha();
  if (captchaName) result.captcha = captchaName;
  const focused = focus();
  if (focused) result.focus = focused;

  const targetOf = (agentId?: number, marker?: string): Element | undefined => {
    if (agentId !== undefined) return byId.get(agentId);
    if (marker) return queryAll(`[data-xclaw-target='${marker}']`)[0];
    return undefined;
  };

  const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const shortHref = (href: string) => {
    try {
      const url = new URL(href, location.href);
      if (url.protocol === "javascript:") return "(script)";
      return clip(url.origin === location.origin ? url.pathname + url.search + url.hash : url.href, 120);
    } catch {
      return clip(href, 120);
    }
  };

  const distill = (mode: "text" | "html"): string => {
    const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "SVG", "CANVAS", "OBJECT", "EMBED", "PARAM", "SOURCE", "TRACK", "AUDIO", "VIDEO", "MAP", OVERLAY.toUpperCase()]);
    const BLOCK = new Set(
      "ADDRESS ARTICLE ASIDE BLOCKQUOTE BODY CAPTION DD DETAILS DIALOG DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER LEGEND LI MAIN NAV OL P PRE SECTION TABLE TBODY TFOOT THEAD TR UL".split(" "),
    );
    const KEEP = new Set(
      "H1 H2 H3 H4 H5 H6 P UL OL LI TABLE THEAD TBODY TFOOT TR TD TH CAPTION FORM LABEL MAIN NAV HEADER FOOTER SECTION ARTICLE ASIDE DIALOG BLOCKQUOTE PRE DL DT DD FIELDSET LEGEND FIGURE FIGCAPTION DETAILS".split(" "),
    );
    const LANDMARK_ROLES = new Set(["grid", "listbox", "dialog", "alertdialog", "navigation", "main", "tablist", "tabpanel", "menu", "search", "form", "row", "table", "alert", "status"]);
    const out: string[] = [];

    const tokenText = (item: TInPageElement) => {
      const parts = [String(item.id), item.role];
      if (item.label) parts.push(JSON.stringify(item.label));
      if (item.role === "textbox" && item.type && item.type !== "text") parts.push(`type=${item.type}`);
      if (item.role === "select") parts.push(`= ${JSON.stringify(item.value ?? "")} of ${(item.options ?? []).join(" | ")}`);
      else if (item.value !== undefined) parts.push(`value=${JSON.stringify(item.value)}`);
      if (item.checked !== undefined) parts.push(item.checked ? "checked" : "unchecked");
      if (item.selected) parts.push("selected");
      if (item.expanded !== undefined) parts.push(item.expanded ? "expanded" : "collapsed");
      if (item.disabled) parts.push("disabled");
      if (item.href) parts.push(`→ ${shortHref(item.href)}`);
      if (item.sensitive) parts.push("(needs approval)");
      return ` [${parts.join(" ")}] `;
    };

    const tokenHtml = (element: Element, item: TInPageElement) => {
      const tag = item.tag;
      const attributes: string[] = [`data-agent-id="${item.id}"`];
      const explicitRole = element.getAttribute("role");
      if (explicitRole) attributes.push(`role="${escapeHtml(explicitRole)}"`);
      if (item.type) attributes.push(`type="${escapeHtml(item.type)}"`);
      const name = element.getAttribute("name");
      if (name) attributes.push(`name="${escapeHtml(clip(name, 60))}"`);
      if (item.href) attributes.push(`href="${escapeHtml(shortHref(item.href))}"`);
      if (item.checked) attributes.push("checked");
      if (item.selected) attributes.push('aria-selected="true"');
      if (item.expanded !== undefined) attributes.push(`aria-expanded="${item.expanded}"`);
      if (item.disabled) attributes.push("disabled");
      if (item.sensitive) attributes.push("needs-approval");
      if (tag === "input") {
        if (item.label) attributes.push(`label="${escapeHtml(item.label)}"`);
        if (item.value !== undefined) attributes.push(`value="${escapeHtml(item.value)}"`);
        return `<input ${attributes.join(" ")}>`;
      }
      if (tag === "select") {
        if (item.label) attributes.push(`label="${escapeHtml(item.label)}"`);
        const options = (item.options ?? []).map((option) => (option === item.value ? `<option selected>${escapeHtml(option)}</option>` : `<option>${escapeHtml(option)}</option>`));
        return `<select ${attributes.join(" ")}>${options.join("")}</select>`;
      }
      if (tag === "textarea") {
        if (item.label) attributes.push(`label="${escapeHtml(item.label)}"`);
        return `<textarea ${attributes.join(" ")}>${escapeHtml(item.value ?? "")}</textarea>`;
      }
      return `<${tag} ${attributes.join(" ")}>${escapeHtml(item.label)}</${tag}>`;
    };

    const walkChildren = (element: Element) => {
      if (element.tagName === "SLOT") {
        const assigned = (element as HTMLSlotElement).assignedNodes({ flatten: true });
        if (assigned.length) return assigned.forEach(walk);
      }
      const children = element.shadowRoot ? element.shadowRoot.childNodes : element.childNodes;
      children.forEach(walk);
    };

    const walk = (node: Node): void => {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = (node.textContent ?? "").replace(/\s+/g, " ");
        if (text) out.push(mode === "html" ? escapeHtml(text) : text);
        return;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) return;
      const element = node as Element;
      const tag = element.tagName;
      if (SKIP.has(tag) || element.hasAttribute("hidden") || !isVisible(element)) return;
      const id = idOf.get(element);
      if (id !== undefined) {
        const item = summarize(element, id);
        out.push(mode === "html" ? tokenHtml(element, item) : tokenText(item));
        // A grid cell or a card may hold controls of its own; those get their own entries.
        if (element.querySelector(`[${ID}]`)) walkChildren(element);
        return;
      }
      if (tag === "IFRAME") {
        const name = clean(element.getAttribute("title")) || shortHref(element.getAttribute("src") ?? "");
        if (name) out.push(`\n[frame: ${mode === "html" ? escapeHtml(name) : name}]\n`);
        return;
      }
      if (tag === "IMG") {
        const alt = clean(element.getAttribute("alt"));
        if (alt) out.push(mode === "html" ? `<img alt="${escapeHtml(alt)}">` : ` [image: ${alt}] `);
        return;
      }
      if (tag === "BR") return void out.push("\n");
      if (tag === "HR") return void out.push(mode === "html" ? "\n<hr>\n" : "\n---\n");
      const block = BLOCK.has(tag);
      const role = element.getAttribute("role");
      if (mode === "text") {
        if (/^H[1-6]$/.test(tag)) out.push(`\n\n${"#".repeat(Number(tag[1]))} `);
        else if (tag === "LI") out.push("\n- ");
        else if (tag === "TD" || tag === "TH" || role === "gridcell" || role === "cell" || role === "columnheader") out.push(" | ");
        else if (block || role === "row") out.push("\n");
        if (tag === "FORM") {
          const form = element as HTMLFormElement;
          out.push(`[form ${(form.getAttribute("method") || "get").toLowerCase()} ${shortHref(form.action)}]\n`);
        }
        walkChildren(element);
        // List items and table rows follow each other line by line; other blocks get a blank line.
        if ((block || /^H[1-6]$/.test(tag)) && tag !== "LI" && tag !== "TR" && tag !== "DT" && tag !== "DD") out.push("\n");
        return;
      }
      const keep = KEEP.has(tag) || (role !== null && LANDMARK_ROLES.has(role));
      if (keep) {
        const name = tag.toLowerCase();
        const attributes: string[] = [];
        if (role) attributes.push(`role="${escapeHtml(role)}"`);
        const ariaLabel = clean(element.getAttribute("aria-label"));
        if (ariaLabel) attributes.push(`aria-label="${escapeHtml(clip(ariaLabel, 80))}"`);
        if (tag === "FORM") {
          const form = element as HTMLFormElement;
          attributes.push(`method="${(form.getAttribute("method") || "get").toLowerCase()}"`, `action="${escapeHtml(shortHref(form.action))}"`);
        }
        const open = `<${KEEP.has(tag) ? name : "div"}${attributes.length ? " " + attributes.join(" ") : ""}>`;
        out.push(block ? `\n${open}` : open);
        walkChildren(element);
        out.push(`</${KEEP.has(tag) ? name : "div"}>${block ? "\n" : ""}`);
        return;
      }
      if (block) out.push("\n");
      walkChildren(element);
      if (block) out.push("\n");
    };

    if (document.body) walk(document.body);
    return out
      .join("")
      .split("\n")
      .map((line) => line.replace(/[ \t\u00a0]+/g, " ").replace(/^( ?\| ?)+/, "").replace(/( ?\| ?)+$/, "").trim())
      // Text keeps one blank line between blocks; in HTML the tags already separate them.
      .filter((line, index, lines) => line !== "" || (mode === "text" && index > 0 && lines[index - 1] !== ""))
      .join("\n")
      .trim();
  };

  switch (request.command) {
    case "refresh":
    case "focus":
      break;
    case "distill":
      result.rawCharacters = document.documentElement.outerHTML.length;
      result.distilled = distill(request.mode);
      break;
    case "describe": {
      const element = targetOf(request.agentId, request.marker);
      if (!element) result.missing = true;
      else result.element = summarize(element, idOf.get(element) ?? 0, { acting: true });
      break;
    }
    case "hit-test": {
      const element = targetOf(request.agentId, request.marker);
      if (!element) {
        result.missing = true;
        break;
      }
      result.element = summarize(element, idOf.get(element) ?? 0, { acting: true });
      element.scrollIntoView({ block: "center", inline: "center" });
      const rect = element.getBoundingClientRect();
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      let hit = document.elementFromPoint(x, y);
      while (hit?.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      if (hit && hit !== element && !element.contains(hit)) {
        const hitId = hit.id ? `#${hit.id}` : "";
        result.obstructedBy = `${hit.tagName.toLowerCase()}${hitId}${clean(hit.textContent) ? ` "${clip(clean(hit.textContent), 40)}"` : ""}`;
      }
      break;
    }
    case "dismissals": {
      const DISMISS = /^(accept|accept all|accept all cookies|accept cookies|allow all|allow all cookies|allow cookies|agree|i agree|agree and close|ok|okay|got it|i understand|close|dismiss|no thanks|no, thanks|not now|maybe later|×|✕|✖|同意|接受|全部接受|我知道了|知道了|关闭|好的|暂不)$/i;
      const CONTAINER = [
        "[role='dialog']",
        "[role='alertdialog']",
        "[aria-modal='true']",
        "dialog",
        ...["cookie", "consent", "gdpr", "popup", "modal", "banner", "newsletter", "overlay"].flatMap((word) => [`[id*='${word}' i]`, `[class*='${word}' i]`]),
      ].join(",");
      const containers = new Set<Element>();
      const found: { id: number; label: string; accept: boolean }[] = [];
      for (const [id, element] of byId) {
        if (roleOf(element) !== "button") continue;
        const label = labelOf(element);
        const closeLabel = /^(close|dismiss|关闭)/i.test(clean(element.getAttribute("aria-label")));
        if ((!DISMISS.test(label) && !closeLabel) || sensitivityOf(element, label)) continue;
        let container = element.closest(CONTAINER);
        for (let ancestor = element.parentElement, depth = 0; !container && ancestor && depth < 8; ancestor = ancestor.parentElement, depth++) {
          const position = getComputedStyle(ancestor).position;
          if (position === "fixed" || position === "sticky") container = ancestor;
        }
        if (!container || containers.has(container)) continue;
        containers.add(container);
        found.push({ id, label, accept: !closeLabel && !/^(close|dismiss|no|not now|maybe later|×|✕|✖|关闭|暂不)/i.test(label) });
      }
      // Accepting makes most banners go away for good; closing is the fallback.
      result.dismiss = found.sort((a, b) => Number(b.accept) - Number(a.accept)).slice(0, 3).map(({ id, label }) => ({ id, label }));
      break;
    }
    case "annotate": {
      for (const old of Array.from(document.querySelectorAll(OVERLAY))) old.remove();
      const host = document.createElement(OVERLAY);
      host.style.cssText = "all: initial !important; position: fixed !important; inset: 0 !important; pointer-events: none !important; z-index: 2147483647 !important; display: block !important;";
      const shadow = host.attachShadow({ mode: "open" });
      const colors = ["#e11d48", "#2563eb", "#16a34a", "#c2410c", "#7c3aed", "#0e7490"];
      const boxes: TInPageElement[] = [];
      for (const [id, element] of byId) {
        const rect = element.getBoundingClientRect();
        if (rect.width < 1 || rect.height < 1 || rect.bottom <= 0 || rect.right <= 0 || rect.top >= innerHeight || rect.left >= innerWidth) continue;
        const color = colors[id % colors.length]!;
        const box = document.createElement("div");
        box.style.cssText = `position:fixed;left:${rect.left}px;top:${rect.top}px;width:${rect.width}px;height:${rect.height}px;border:2px solid ${color};box-sizing:border-box;`;
        const tag = document.createElement("div");
        tag.textContent = String(id);
        const top = rect.top >= 16 ? rect.top - 16 : rect.top;
        tag.style.cssText = `position:fixed;left:${Math.max(0, rect.left)}px;top:${top}px;background:${color};color:#fff;font:bold 12px/16px sans-serif;padding:0 4px;border-radius:3px;`;
        shadow.append(box, tag);
        boxes.push(summarize(element, id));
      }
      document.documentElement.appendChild(host);
      result.boxes = boxes;
      break;
    }
    case "unannotate":
      for (const old of Array.from(document.querySelectorAll(OVERLAY))) old.remove();
      break;
    case "scroll": {
      const before = { x: scrollX, y: scrollY };
      scrollBy(request.dx, request.dy);
      let container: string | undefined;
      if (scrollX === before.x && scrollY === before.y) {
        // Many apps scroll an inner panel instead of the window: scroll the biggest one.
        const vertical = request.dy !== 0;
        const scrollable = queryAll("*").filter((element) => {
          const style = getComputedStyle(element);
          const overflow = vertical ? style.overflowY : style.overflowX;
          const room = vertical ? element.scrollHeight - element.clientHeight : element.scrollWidth - element.clientWidth;
          return (overflow === "auto" || overflow === "scroll") && room > 10 && isRendered(element);
        });
        const biggest = scrollable.sort((a, b) => b.clientWidth * b.clientHeight - a.clientWidth * a.clientHeight)[0];
        if (biggest) {
          biggest.scrollBy(request.dx, request.dy);
          container = `${biggest.tagName.toLowerCase()}${biggest.id ? `#${biggest.id}` : ""}`;
          result.scroll = { x: biggest.scrollLeft, y: biggest.scrollTop, width: biggest.scrollWidth, height: biggest.scrollHeight, viewportWidth: biggest.clientWidth, viewportHeight: biggest.clientHeight, container };
          break;
        }
      }
      const root = document.scrollingElement ?? document.documentElement;
      result.scroll = { x: scrollX, y: scrollY, width: root.scrollWidth, height: root.scrollHeight, viewportWidth: innerWidth, viewportHeight: innerHeight };
      break;
    }
  }
  return result;
}

/**
 * Runs the runtime in the page. Bundlers that keep function names (tsx does) wrap inner functions
 * in `__name(...)` calls; the page has no such helper, so the source gets a local one.
 */
export async function runInPage(page: Page | Frame, request: TInPageRequest): Promise<TInPageResult> {
  const source = `(() => { const __name = (target) => target; return (${inPageRuntime.toString()})(${JSON.stringify(request)}); })()`;
  return (await page.evaluate(source)) as TInPageResult;
}

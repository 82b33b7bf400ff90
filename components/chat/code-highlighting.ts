import type { CodeHighlighterPlugin, HighlightOptions, HighlightResult } from "streamdown";

/**
 * Syntax highlighting for code blocks, loaded only when a reply first shows a code block and run
 * in a Web Worker (highlight.worker.ts): `@streamdown/code` is Shiki with its JavaScript regex
 * engine (no WebAssembly, no eval, so nothing the page's Content-Security-Policy forbids), and
 * each language's grammar is a chunk of its own. Until tokens arrive a block shows as plain code;
 * Streamdown re-renders it when they do. A block still being streamed is not highlighted (it
 * changes with every update). Where a worker cannot start, blocks are highlighted on the page one
 * at a time with a return to the event loop in between.
 */
const THEMES = ["github-light", "github-dark"] as const satisfies [string, string];
const MAX_CACHED = 300;

type TWaiting = { key: string; callbacks: ((result: HighlightResult) => void)[] };

const results = new Map<string, HighlightResult>();
const waiting = new Map<string, TWaiting>();
const byRequest = new Map<number, TWaiting>();
let requestCounter = 0;
let worker: Worker | null | undefined;

function keyOf(options: HighlightOptions): string {
  return `${options.language}\u0000${options.code}`;
}

function settle(entry: TWaiting, result: HighlightResult | null) {
  waiting.delete(entry.key);
  if (!result) return;
  if (results.size >= MAX_CACHED) results.delete(results.keys().next().value!);
  results.set(entry.key, result);
  for (const callback of entry.callbacks) callback(result);
}

function isHighlightResult(value: unknown): value is HighlightResult {
  return typeof value === "object" && value !== null && "tokens" in value && Array.isArray(value.tokens);
}

function startWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL("./highlight.worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<{ id: number; result: unknown }>) => {
      const entry = byRequest.get(event.data.id);
      byRequest.delete(event.data.id);
      if (entry) settle(entry, isHighlightResult(event.data.result) ? event.data.result : null);
    };
    worker.onerror = () => {
      // The worker failed (blocked or crashed): what it had not answered is done on the page.
      worker = null;
      const stranded = [...byRequest.values()];
      byRequest.clear();
      for (const entry of stranded) for (const callback of entry.callbacks) onPage({ code: entry.key.split("\u0000")[1]!, language: entry.key.split("\u0000")[0]!, themes: [...THEMES] }, callback);
    };
  } catch {
    worker = null;
  }
  return worker;
}

// On the page, as a fallback: one block at a time, yielding between blocks.
let pagePlugin: Promise<CodeHighlighterPlugin> | undefined;
const pageQueue: { options: HighlightOptions; callback?: (result: HighlightResult) => void }[] = [];
let draining = false;

function onPage(options: HighlightOptions, callback?: (result: HighlightResult) => void) {
  pageQueue.push({ options, callback });
  void drainOnPage();
}

async function drainOnPage() {
  if (draining) return;
  draining = true;
  try {
    pagePlugin ??= import("@streamdown/code").then((module) => module.createCodePlugin({ themes: [THEMES[0], THEMES[1]] }));
    const plugin = await pagePlugin;
    while (pageQueue.length) {
      const { options, callback } = pageQueue.shift()!;
      const result = await new Promise<HighlightResult | null>((resolve) => {
        const immediate = plugin.highlight(options, resolve);
        if (immediate) resolve(immediate);
      });
      const entry = waiting.get(keyOf(options));
      if (entry) settle(entry, result);
      else if (result) callback?.(result);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } catch {
    // Highlighting is a nicety: without it the blocks stay plain, readable code.
    pageQueue.length = 0;
  } finally {
    draining = false;
  }
}

export const lazyCodeHighlighting: CodeHighlighterPlugin = {
  name: "shiki",
  type: "code-highlighter",
  // Every fence gets a try; an unknown language comes back as plain text.
  supportsLanguage: (language) => Boolean(language),
  getSupportedLanguages: () => [],
  getThemes: () => [THEMES[0], THEMES[1]],
  highlight(options, callback) {
    if (options.isIncomplete) return null;
    const key = keyOf(options);
    const known = results.get(key);
    if (known) return known;
    const pending = waiting.get(key);
    if (pending) {
      if (callback) pending.callbacks.push(callback);
      return null;
    }
    const entry: TWaiting = { key, callbacks: callback ? [callback] : [] };
    waiting.set(key, entry);
    const target = startWorker();
    if (target) {
      const id = ++requestCounter;
      byRequest.set(id, entry);
      target.postMessage({ id, code: options.code, language: options.language });
    } else onPage(options);
    return null;
  },
};

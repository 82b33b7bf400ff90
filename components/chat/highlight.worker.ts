/**
 * Tokenises code blocks off the main thread (code-highlighting.ts): Shiki compiles a grammar's
 * rules into regular expressions on first use and runs them line by line, which for a long reply
 * with dozens of blocks takes hundreds of milliseconds the page would otherwise be frozen for.
 */
import { createCodePlugin } from "@streamdown/code";
import type { CodeHighlighterPlugin } from "streamdown";

export type THighlightRequest = { id: number; code: string; language: string };

// Streamdown's plugin type takes any language name; unknown ones come back as plain text.
const plugin: CodeHighlighterPlugin = createCodePlugin({ themes: ["github-light", "github-dark"] });

self.onmessage = (event: MessageEvent<THighlightRequest>) => {
  const { id, code, language } = event.data;
  const reply = (result: unknown) => self.postMessage({ id, result });
  try {
    const immediate = plugin.highlight({ code, language, themes: ["github-light", "github-dark"] }, reply);
    if (immediate) reply(immediate);
  } catch {
    reply(null);
  }
};

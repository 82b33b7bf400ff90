import type { CodeHighlighterPlugin } from "streamdown";

/**
 * Syntax highlighting for code blocks, loaded only when a reply first shows a code block:
 * `@streamdown/code` (Shiki with its JavaScript regex engine, so no WebAssembly and no eval under
 * the page's Content-Security-Policy) and each language's grammar are separate chunks. Until they
 * have arrived a block shows as plain code; Streamdown re-renders it when the tokens come back.
 */
const THEMES = ["github-light", "github-dark"] as const satisfies [string, string];

let loaded: CodeHighlighterPlugin | undefined;
let loading: Promise<CodeHighlighterPlugin> | undefined;

function load(): Promise<CodeHighlighterPlugin> {
  loading ??= import("@streamdown/code").then((module) => {
    loaded = module.createCodePlugin({ themes: [THEMES[0], THEMES[1]] });
    return loaded;
  });
  return loading;
}

export const lazyCodeHighlighting: CodeHighlighterPlugin = {
  name: "shiki",
  type: "code-highlighter",
  supportsLanguage: (language) => (loaded ? loaded.supportsLanguage(language) : Boolean(language)),
  getSupportedLanguages: () => loaded?.getSupportedLanguages() ?? [],
  getThemes: () => [THEMES[0], THEMES[1]],
  highlight(options, callback) {
    if (loaded) return loaded.highlight(options, callback);
    void load().then(
      (plugin) => {
        const result = plugin.highlight(options, callback);
        if (result) callback?.(result);
      },
      () => {
        // Highlighting is a nicety: without it the block stays plain, readable code.
      },
    );
    return null;
  },
};

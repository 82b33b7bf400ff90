"use client";

import { memo, useDeferredValue, useEffect, useState, type ComponentProps } from "react";
import { defaultRehypePlugins, defaultRemarkPlugins, Streamdown, type Components } from "streamdown";
import { lazyCodeHighlighting } from "./code-highlighting";

/**
 * Model text rendered with Streamdown, a maintained streaming Markdown renderer: it splits the
 * text into blocks and renders each block once (a finished paragraph or code block is not parsed
 * again as the reply grows), closes unfinished syntax while a reply streams, and highlights code
 * lazily (code-highlighting.ts). Rendering is deferred (useDeferredValue), so React renders a long
 * reply in slices between the browser's frames instead of one long task.
 *
 * Model output is untrusted: raw HTML in it is shown as text (never parsed into elements), links
 * must be http(s) or mailto (sanitised) and open only after Streamdown's confirmation, and images
 * from the model are not loaded (an image address can carry data out). Headings start at h3: the page has the h1, the
 * message list the h2.
 */
type TNode = { type: string; value?: string; children?: TNode[] };

/** Turns raw HTML in Markdown into plain text, so `<img onerror=…>` shows as written. */
function remarkHtmlAsText() {
  const visit = (node: TNode) => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(visit);
  };
  return (tree: TNode) => visit(tree);
}

// Streamdown's own remark plugins (GitHub Flavored Markdown, code fence metadata) plus ours.
const REMARK_PLUGINS = [...Object.values(defaultRemarkPlugins), remarkHtmlAsText];

// Streamdown's sanitiser (GitHub's schema: http(s) and mailto links, no scripts, no event
// handlers) without its raw-HTML step, so nothing from the model becomes markup.
const REHYPE_PLUGINS = [defaultRehypePlugins.sanitize!] satisfies ComponentProps<typeof Streamdown>["rehypePlugins"];

/** An image the model pointed at is named, never loaded (its address could carry data away). */
function ModelImage({ alt }: ComponentProps<"img"> & { node?: unknown }) {
  return <span className="text-neutral-500 italic dark:text-neutral-400">[image{alt ? `: ${alt}` : ""}]</span>;
}

function demoted(level: 3 | 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  const sizes = { 3: "text-lg", 4: "text-base", 5: "text-base", 6: "text-sm" };
  return function Heading({ node: _node, className: _className, ...props }: ComponentProps<"h1"> & { node?: unknown }) {
    return <Tag className={`mt-5 mb-2 font-semibold first:mt-0 ${sizes[level]}`} {...props} />;
  };
}

const COMPONENTS: Components = { h1: demoted(3), h2: demoted(4), h3: demoted(5), h4: demoted(6), h5: demoted(6), h6: demoted(6), img: ModelImage };

const PLUGINS = { code: lazyCodeHighlighting };
const CONTROLS = { code: { copy: true, download: false }, table: { copy: true, download: false, fullscreen: false }, mermaid: false, image: false } as const;

// At most this much new text is added per step: a reply that arrives in one burst (a reload
// mid-reply replays the run from its start), or a long one loaded with the history, becomes several
// small renders and commits instead of one that blocks the page. Streaming never comes close to it.
const REVEAL_PER_FRAME = 3_000;

/** The end of the text to show next: at a line break near `target` when there is one. */
function revealBoundary(text: string, target: number): number {
  if (target >= text.length) return text.length;
  const lineEnd = text.indexOf("\n", target);
  if (lineEnd !== -1 && lineEnd - target < 2_000) return lineEnd + 1;
  // Never between the two halves of a surrogate pair.
  return /[\uD800-\uDBFF]/.test(text[target - 1] ?? "") ? target + 1 : target;
}

export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  // Text is revealed in steps of at most REVEAL_PER_FRAME, each rendered as a deferred
  // (interruptible) update, and the next step is taken only once this one is on screen: a burst
  // becomes a series of small renders and commits instead of one long task. A long reply in the
  // history is server-rendered and hydrated with its first step only and fills in right after.
  const [shown, setShown] = useState(() => revealBoundary(text, REVEAL_PER_FRAME));
  const behind = shown < text.length;
  const revealed = behind ? text.slice(0, shown) : text;
  const deferred = useDeferredValue(revealed);
  const caughtUp = deferred === revealed;
  useEffect(() => {
    if (!behind || !caughtUp) return;
    const frame = requestAnimationFrame(() => setShown((current) => revealBoundary(text, current + REVEAL_PER_FRAME)));
    return () => cancelAnimationFrame(frame);
  }, [behind, caughtUp, text]);
  return (
    <Streamdown
      className="markdown min-w-0 text-[15px] leading-7 break-words"
      // Block mode also for finished replies: each block is its own small render, never one long task.
      mode="streaming"
      isAnimating={streaming}
      // Constant: switching it when the stream ends would render every block again at once.
      parseIncompleteMarkdown
      remarkPlugins={REMARK_PLUGINS}
      rehypePlugins={REHYPE_PLUGINS}
      components={COMPONENTS}
      plugins={PLUGINS}
      controls={CONTROLS}
      lineNumbers={false}
    >
      {deferred}
    </Streamdown>
  );
});

"use client";

import { memo, useDeferredValue, type ComponentProps } from "react";
import { harden } from "rehype-harden";
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
 * must be http(s) or mailto and open only after a confirmation, and images from the model are not
 * loaded (an image address can carry data out). Headings start at h3: the page has the h1, the
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

const REHYPE_PLUGINS = [
  defaultRehypePlugins.sanitize!,
  [
    harden,
    {
      allowedLinkPrefixes: ["https://", "http://", "mailto:"],
      allowedProtocols: ["https", "http", "mailto"],
      allowedImagePrefixes: [],
      allowDataImages: false,
      imageBlockPolicy: "text-only",
    },
  ],
] satisfies ComponentProps<typeof Streamdown>["rehypePlugins"];

function demoted(level: 3 | 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  const sizes = { 3: "text-lg", 4: "text-base", 5: "text-base", 6: "text-sm" };
  return function Heading({ node: _node, className: _className, ...props }: ComponentProps<"h1"> & { node?: unknown }) {
    return <Tag className={`mt-5 mb-2 font-semibold first:mt-0 ${sizes[level]}`} {...props} />;
  };
}

const COMPONENTS: Components = { h1: demoted(3), h2: demoted(4), h3: demoted(5), h4: demoted(6), h5: demoted(6), h6: demoted(6) };

const PLUGINS = { code: lazyCodeHighlighting };
const CONTROLS = { code: { copy: true, download: false }, table: { copy: true, download: false, fullscreen: false }, mermaid: false, image: false } as const;

export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  // A reply that arrives in one burst (a reload mid-reply replays the run) is rendered in slices.
  const deferred = useDeferredValue(text);
  return (
    <Streamdown
      className="markdown min-w-0 text-[15px] leading-7 break-words"
      // Block mode also for finished replies: each block is its own small render, never one long task.
      mode="streaming"
      isAnimating={streaming}
      parseIncompleteMarkdown={streaming}
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

"use client";

import { memo, useMemo, type ReactNode } from "react";
import { CodeBlock } from "./code-block";
import { parseBlocks, parseInline, type TAlign, type TBlock, type TInline } from "./markdown-parser";

/**
 * Model text as React elements (never as HTML). Headings start at h3: the page has the h1 and the
 * message list the h2.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => parseBlocks(text), [text]);
  return <div className="markdown min-w-0 text-[15px] leading-7 break-words">{renderBlocks(blocks, false)}</div>;
});

const HEADINGS = [
  "mt-5 mb-2 text-xl font-semibold first:mt-0",
  "mt-5 mb-2 text-lg font-semibold first:mt-0",
  "mt-4 mb-2 text-base font-semibold first:mt-0",
  "mt-4 mb-1 text-base font-semibold first:mt-0",
  "mt-3 mb-1 text-sm font-semibold first:mt-0",
  "mt-3 mb-1 text-sm font-semibold text-neutral-600 first:mt-0 dark:text-neutral-400",
];

function renderBlocks(blocks: TBlock[], tight: boolean): ReactNode[] {
  return blocks.map((block, index) => renderBlock(block, index, tight));
}

function alignClass(align: TAlign): string {
  return align === "center" ? "text-center" : align === "right" ? "text-right" : "text-left";
}

function renderBlock(block: TBlock, key: number, tight: boolean): ReactNode {
  switch (block.type) {
    case "heading": {
      const className = HEADINGS[block.level - 1];
      const children = renderInline(parseInline(block.text));
      if (block.level === 1) return <h3 key={key} className={className}>{children}</h3>;
      if (block.level === 2) return <h4 key={key} className={className}>{children}</h4>;
      if (block.level === 3) return <h5 key={key} className={className}>{children}</h5>;
      return <h6 key={key} className={className}>{children}</h6>;
    }
    case "paragraph":
      return tight ? (
        <span key={key} className="block">
          {renderInline(parseInline(block.text))}
        </span>
      ) : (
        <p key={key} className="my-3 first:mt-0 last:mb-0">
          {renderInline(parseInline(block.text))}
        </p>
      );
    case "code":
      return <CodeBlock key={key} code={block.code} language={block.language} />;
    case "rule":
      return <hr key={key} className="my-4 border-neutral-200 dark:border-neutral-800" />;
    case "quote":
      return (
        <blockquote key={key} className="my-3 border-l-4 border-neutral-300 pl-4 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400">
          {renderBlocks(block.blocks, false)}
        </blockquote>
      );
    case "list": {
      const items = block.items.map((item, index) => (
        <li key={index} className={["pl-1", item.checked !== null ? "list-none" : ""].join(" ")}>
          {item.checked !== null ? (
            <input type="checkbox" checked={item.checked} disabled readOnly aria-label={item.checked ? "Done" : "Not done"} className="mr-2 -ml-5 align-middle" />
          ) : null}
          {renderBlocks(item.blocks, !block.loose)}
        </li>
      ));
      const className = ["my-3 space-y-1 pl-6 first:mt-0 last:mb-0", block.ordered ? "list-decimal" : "list-disc", "marker:text-neutral-400 dark:marker:text-neutral-500"].join(" ");
      return block.ordered ? (
        <ol key={key} start={block.start === 1 ? undefined : block.start} className={className}>
          {items}
        </ol>
      ) : (
        <ul key={key} className={className}>
          {items}
        </ul>
      );
    }
    case "table":
      return (
        <div key={key} className="my-3 overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
          <table className="w-full border-collapse text-sm">
            <thead className="bg-neutral-50 dark:bg-neutral-900">
              <tr>
                {block.header.map((cell, column) => (
                  <th key={column} scope="col" className={`border-b border-neutral-200 px-3 py-2 font-semibold dark:border-neutral-800 ${alignClass(block.align[column] ?? null)}`}>
                    {renderInline(parseInline(cell))}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, rowIndex) => (
                <tr key={rowIndex} className="border-b border-neutral-200 last:border-b-0 dark:border-neutral-800">
                  {row.map((cell, column) => (
                    <td key={column} className={`px-3 py-1.5 align-top ${alignClass(block.align[column] ?? null)}`}>
                      {renderInline(parseInline(cell))}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

function renderInline(nodes: TInline[]): ReactNode[] {
  return nodes.map((node, index) => {
    switch (node.type) {
      case "text":
        return node.text;
      case "break":
        return <br key={index} />;
      case "code":
        return (
          <code key={index} className="rounded bg-neutral-100 px-1 py-0.5 font-mono text-[0.875em] text-neutral-900 dark:bg-neutral-800 dark:text-neutral-100">
            {node.text}
          </code>
        );
      case "strong":
        return (
          <strong key={index} className="font-semibold">
            {renderInline(node.children)}
          </strong>
        );
      case "em":
        return <em key={index}>{renderInline(node.children)}</em>;
      case "del":
        return <del key={index}>{renderInline(node.children)}</del>;
      case "link":
        return node.href ? (
          <a
            key={index}
            href={node.href}
            target="_blank"
            rel="noopener noreferrer"
            className="font-medium text-blue-700 underline underline-offset-2 hover:text-blue-900 dark:text-blue-400 dark:hover:text-blue-300"
          >
            {renderInline(node.children)}
          </a>
        ) : (
          <span key={index}>{renderInline(node.children)}</span>
        );
    }
  });
}

/**
 * A small Markdown parser for model replies: headings, paragraphs, emphasis, inline code, fenced
 * code, lists (nested, ordered, task items), block quotes, rules, links and GitHub-style tables.
 * It produces a plain tree that markdown.tsx turns into React elements, so model text never
 * reaches the page as HTML. Streaming text is parsed as it grows: an unclosed fence is still a
 * code block, half-typed emphasis stays literal.
 */

export type TAlign = "left" | "center" | "right" | null;

export type TBlock =
  | { type: "heading"; level: number; text: string }
  | { type: "paragraph"; text: string }
  | { type: "code"; language: string; code: string }
  | { type: "list"; ordered: boolean; start: number; loose: boolean; items: TListItem[] }
  | { type: "quote"; blocks: TBlock[] }
  | { type: "table"; align: TAlign[]; header: string[]; rows: string[][] }
  | { type: "rule" };

export type TListItem = { checked: boolean | null; blocks: TBlock[] };

export type TInline =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong"; children: TInline[] }
  | { type: "em"; children: TInline[] }
  | { type: "del"; children: TInline[] }
  | { type: "link"; href: string | null; children: TInline[] }
  | { type: "break" };

const FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function indentOf(line: string): number {
  let width = 0;
  for (const char of line) {
    if (char === " ") width++;
    else if (char === "\t") width += 4 - (width % 4);
    else break;
  }
  return width;
}

/** Removes up to `count` columns of leading whitespace. */
function dedent(line: string, count: number): string {
  let width = 0;
  let index = 0;
  while (index < line.length && width < count) {
    const char = line[index];
    if (char === " ") width++;
    else if (char === "\t") width += 4 - (width % 4);
    else break;
    index++;
  }
  return line.slice(index);
}

function splitRow(line: string): string[] {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\\" && text[index + 1] === "|") {
      current += "|";
      index++;
    } else if (char === "|") {
      cells.push(current.trim());
      current = "";
    } else current += char;
  }
  cells.push(current.trim());
  return cells;
}

function isTableStart(lines: string[], index: number): boolean {
  const line = lines[index];
  const next = lines[index + 1];
  if (line === undefined || next === undefined || !line.includes("|") || !TABLE_DELIMITER.test(next)) return false;
  return splitRow(line).length === splitRow(next).length;
}

type TListMarker = { indent: number; ordered: boolean; bullet: string; start: number; contentIndent: number; rest: string };

function listMarker(line: string): TListMarker | undefined {
  const match = LIST_ITEM.exec(line);
  if (!match) return undefined;
  const [, spaces = "", marker = "", gap, rest = ""] = match;
  // "-" alone on a line is an empty item; "-foo" is not an item at all.
  if (gap === undefined && rest === "" && line.trimEnd() !== spaces + marker) return undefined;
  const indent = indentOf(spaces);
  const ordered = /\d/.test(marker[0] ?? "");
  const gapWidth = gap === undefined ? 1 : gap.length > 4 ? 1 : gap.length;
  return {
    indent,
    ordered,
    bullet: ordered ? marker.slice(-1) : marker,
    start: ordered ? Number.parseInt(marker, 10) : 1,
    contentIndent: indent + marker.length + gapWidth,
    rest: gap !== undefined && gap.length > 4 ? " ".repeat(gap.length - 1) + rest : rest,
  };
}

/** Whether a line starts a block that ends a paragraph. */
function startsBlock(lines: string[], index: number): boolean {
  const line = lines[index]!;
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || listMarker(line) !== undefined || isTableStart(lines, index);
}

export function parseBlocks(source: string): TBlock[] {
  return parseLines(source.replace(/\r\n?/g, "\n").split("\n"));
}

function parseLines(lines: string[]): TBlock[] {
  const blocks: TBlock[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (isBlank(line)) {
      index++;
      continue;
    }

    const fence = FENCE.exec(line);
    if (fence) {
      const [, indent = "", marker = "", language = ""] = fence;
      const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
      const code: string[] = [];
      index++;
      while (index < lines.length && !closing.test(lines[index]!)) code.push(dedent(lines[index++]!, indent.length));
      index++; // the closing fence (or the end of a still-streaming reply)
      blocks.push({ type: "code", language: language.toLowerCase(), code: code.join("\n") });
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ type: "heading", level: heading[1]!.length, text: heading[2] ?? "" });
      index++;
      continue;
    }

    if (RULE.test(line)) {
      blocks.push({ type: "rule" });
      index++;
      continue;
    }

    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (index < lines.length && !isBlank(lines[index]!)) {
        const match = QUOTE.exec(lines[index]!);
        // A line without ">" right after quoted text continues it (lazy continuation).
        if (!match && startsBlock(lines, index)) break;
        quoted.push(match ? match[1]! : lines[index]!);
        index++;
      }
      blocks.push({ type: "quote", blocks: parseLines(quoted) });
      continue;
    }

    if (isTableStart(lines, index)) {
      const header = splitRow(line);
      const align = splitRow(lines[index + 1]!).map((cell): TAlign => {
        const left = cell.startsWith(":");
        const right = cell.endsWith(":");
        return left && right ? "center" : right ? "right" : left ? "left" : null;
      });
      index += 2;
      const rows: string[][] = [];
      while (index < lines.length && !isBlank(lines[index]!) && lines[index]!.includes("|")) {
        const cells = splitRow(lines[index]!);
        rows.push(header.map((_, column) => cells[column] ?? ""));
        index++;
      }
      blocks.push({ type: "table", align, header, rows });
      continue;
    }

    const marker = listMarker(line);
    if (marker) {
      index = parseList(lines, index, marker, blocks);
      continue;
    }

    const paragraph: string[] = [line.trim()];
    index++;
    while (index < lines.length && !isBlank(lines[index]!) && !startsBlock(lines, index)) paragraph.push(lines[index++]!.trim());
    blocks.push({ type: "paragraph", text: paragraph.join("\n") });
  }
  return blocks;
}

function parseList(lines: string[], startIndex: number, first: TListMarker, blocks: TBlock[]): number {
  const items: TListItem[] = [];
  let loose = false;
  let index = startIndex;
  let marker: TListMarker | undefined = first;
  while (marker) {
    const itemLines = [marker.rest];
    let previousBlank = false;
    let sawBlankInside = false;
    index++;
    while (index < lines.length) {
      const line = lines[index]!;
      if (isBlank(line)) {
        previousBlank = true;
        itemLines.push("");
        index++;
        continue;
      }
      const indent = indentOf(line);
      // Lenient about nesting: models often indent sub-items by two spaces under "1.".
      if (indent > marker.indent) {
        if (previousBlank) sawBlankInside = true;
        itemLines.push(dedent(line, Math.min(indent, marker.contentIndent)));
        previousBlank = false;
        index++;
        continue;
      }
      if (!previousBlank && !startsBlock(lines, index)) {
        itemLines.push(line.trim());
        index++;
        continue;
      }
      break;
    }
    while (itemLines.length && isBlank(itemLines[itemLines.length - 1]!)) itemLines.pop();
    if (sawBlankInside) loose = true;

    let checked: boolean | null = null;
    const task = /^\[([ xX])\](?:[ \t]+|$)/.exec(itemLines[0] ?? "");
    if (task) {
      checked = task[1] !== " ";
      itemLines[0] = itemLines[0]!.slice(task[0].length);
    }
    items.push({ checked, blocks: parseLines(itemLines) });

    const next: TListMarker | undefined = index < lines.length ? listMarker(lines[index]!) : undefined;
    const sameList = next && next.ordered === first.ordered && next.bullet === first.bullet && next.indent <= first.indent + 1 && !RULE.test(lines[index]!);
    if (sameList && previousBlank) loose = true;
    marker = sameList ? next : undefined;
  }
  blocks.push({ type: "list", ordered: first.ordered, start: first.start, loose, items });
  return index;
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD = /[\p{L}\p{N}]/u;

/** Only absolute http(s) and mailto links survive; everything else is shown as plain text. */
export function safeHref(raw: string): string | null {
  const candidate = raw.trim().replace(/^<(.*)>$/, "$1");
  try {
    const url = new URL(candidate);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : null;
  } catch {
    return null;
  }
}

function findClosing(text: string, delimiter: string, from: number): number {
  let index = from;
  while (index < text.length) {
    const found = text.indexOf(delimiter, index);
    if (found === -1) return -1;
    if (text[found - 1] === "\\") {
      index = found + 1;
      continue;
    }
    const before = text[found - 1] ?? "";
    if (found > from && before.trim() !== "") {
      // "_" closes only at a word boundary, so snake_case_names stay as they are.
      if (delimiter[0] === "_" && WORD.test(text[found + delimiter.length] ?? "")) {
        index = found + 1;
        continue;
      }
      // A lone "*" that is part of "**" is not the end of an emphasis.
      if (delimiter.length === 1 && (text[found + 1] === delimiter || text[found - 1] === delimiter)) {
        index = found + 2;
        continue;
      }
      return found;
    }
    index = found + 1;
  }
  return -1;
}

function findLinkEnd(text: string, openBracket: number): { labelEnd: number; href: string; end: number } | undefined {
  let depth = 0;
  let labelEnd = -1;
  for (let index = openBracket; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") index++;
    else if (char === "`") {
      const close = text.indexOf("`", index + 1);
      if (close !== -1) index = close;
    } else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) {
      labelEnd = index;
      break;
    }
  }
  if (labelEnd === -1 || text[labelEnd + 1] !== "(") return undefined;
  let parens = 0;
  for (let index = labelEnd + 1; index < text.length; index++) {
    const char = text[index];
    if (char === "(") parens++;
    else if (char === ")" && --parens === 0) {
      const inside = text.slice(labelEnd + 2, index).trim();
      // [text](url "title"): the title is dropped.
      const href = /^(<[^>]*>|\S+)/.exec(inside)?.[1] ?? "";
      return { labelEnd, href, end: index + 1 };
    }
  }
  return undefined;
}

const BARE_URL = /^(?:https?:\/\/|mailto:)[^\s<]+/i;

function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0 && /[.,;:!?'"*_~]/.test(url[end - 1]!)) end--;
  let trimmed = url.slice(0, end);
  // A closing parenthesis belongs to the URL only when it has an opening one.
  while (trimmed.endsWith(")") && (trimmed.match(/\(/g)?.length ?? 0) < (trimmed.match(/\)/g)?.length ?? 0)) trimmed = trimmed.slice(0, -1);
  return trimmed;
}

export function parseInline(text: string): TInline[] {
  const nodes: TInline[] = [];
  let buffer = "";
  const flush = () => {
    if (buffer) nodes.push({ type: "text", text: buffer });
    buffer = "";
  };
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const rest = text.slice(index);

    if (char === "\\" && index + 1 < text.length) {
      const next = text[index + 1]!;
      if (next === "\n") {
        flush();
        nodes.push({ type: "break" });
        index += 2;
        continue;
      }
      if (PUNCTUATION.test(next)) {
        buffer += next;
        index += 2;
        continue;
      }
    }

    if (char === "\n") {
      flush();
      nodes.push({ type: "break" });
      index++;
      continue;
    }

    if (char === "`") {
      const run = /^`+/.exec(rest)![0];
      const close = text.indexOf(run, index + run.length);
      if (close !== -1 && text[close + run.length] !== "`") {
        flush();
        let code = text.slice(index + run.length, close).replace(/\n/g, " ");
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
        nodes.push({ type: "code", text: code });
        index = close + run.length;
        continue;
      }
      buffer += run;
      index += run.length;
      continue;
    }

    if (char === "!" && text[index + 1] === "[") {
      const link = findLinkEnd(text, index + 1);
      if (link) {
        flush();
        // Images from model text are not loaded (they could track the reader); the alt text links to it.
        const alt = text.slice(index + 2, link.labelEnd) || "image";
        nodes.push({ type: "link", href: safeHref(link.href), children: [{ type: "text", text: `🖼 ${alt}` }] });
        index = link.end;
        continue;
      }
    }

    if (char === "[") {
      const link = findLinkEnd(text, index);
      if (link) {
        flush();
        nodes.push({ type: "link", href: safeHref(link.href), children: parseInline(text.slice(index + 1, link.labelEnd)) });
        index = link.end;
        continue;
      }
    }

    if (char === "<") {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s>]+)>/i.exec(rest);
      if (auto) {
        flush();
        nodes.push({ type: "link", href: safeHref(auto[1]!), children: [{ type: "text", text: auto[1]! }] });
        index += auto[0].length;
        continue;
      }
    }

    if ((char === "h" || char === "H" || char === "m" || char === "M") && !WORD.test(text[index - 1] ?? "")) {
      const bare = BARE_URL.exec(rest);
      if (bare) {
        const url = trimUrl(bare[0]);
        if (url.length > 8) {
          flush();
          nodes.push({ type: "link", href: safeHref(url), children: [{ type: "text", text: url }] });
          index += url.length;
          continue;
        }
      }
    }

    if (char === "*" || char === "_" || char === "~") {
      const run = new RegExp(`^\\${char}+`).exec(rest)![0];
      const after = text[index + run.length] ?? "";
      const before = text[index - 1] ?? "";
      const canOpen = after.trim() !== "" && !(char === "_" && WORD.test(before));
      if (canOpen && char === "~" && run.length === 2) {
        const close = findClosing(text, "~~", index + 2);
        if (close !== -1) {
          flush();
          nodes.push({ type: "del", children: parseInline(text.slice(index + 2, close)) });
          index = close + 2;
          continue;
        }
      } else if (canOpen && char !== "~") {
        const size = Math.min(run.length, 3);
        const delimiter = char.repeat(size);
        const close = findClosing(text, delimiter, index + size);
        if (close !== -1) {
          flush();
          const inner = parseInline(text.slice(index + size, close));
          if (size === 3) nodes.push({ type: "strong", children: [{ type: "em", children: inner }] });
          else nodes.push({ type: size === 2 ? "strong" : "em", children: inner });
          index = close + size;
          continue;
        }
      }
      buffer += run;
      index += run.length;
      continue;
    }

    buffer += char;
    index++;
  }
  flush();
  return nodes;
}

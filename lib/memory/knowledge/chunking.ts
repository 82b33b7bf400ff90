/**
 * Structure-aware chunking: a document (Markdown-like text; HTML and PDF are converted first) is
 * cut at headings first, then between paragraphs (fenced code blocks stay whole where they fit),
 * then between sentences — Intl.Segmenter's sentence breaks, which know 。！？ as well as .!? — and
 * only a sentence longer than a whole chunk is cut by length. Chunks aim at `chunkTokens`
 * estimated tokens; a chunk cut for size repeats the last sentences of the previous one (up to
 * `overlapTokens`), so a passage that spans the cut is still readable on its own. Each chunk
 * carries the headings above it ("Setup › Database") for citations and recall.
 */
export type TChunk = { index: number; heading: string | null; content: string };

export type TChunkOptions = { chunkTokens: number; overlapTokens: number };

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_GLOBAL = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** CJK characters count as one token each, other text as four characters per token (as the context window does). */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK_GLOBAL)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

const sentenceSegmenter = new Intl.Segmenter("und", { granularity: "sentence" });

export function splitSentences(text: string): string[] {
  return [...sentenceSegmenter.segment(text)].map((part) => part.segment).filter((sentence) => sentence.trim());
}

type TBlock = { kind: "heading"; level: number; text: string } | { kind: "text"; text: string };

/** Headings, fenced code blocks and paragraphs (blank-line separated), in order. */
function blocksOf(text: string): TBlock[] {
  const blocks: TBlock[] = [];
  const lines = text.split("\n");
  let paragraph: string[] = [];
  const flush = () => {
    const joined = paragraph.join("\n").trim();
    if (joined) blocks.push({ kind: "text", text: joined });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: "heading", level: heading[1]!.length, text: heading[2]!.trim() });
      continue;
    }
    // Setext headings (a line underlined with === or ---).
    if (paragraph.length === 1 && /^(=+|-+)\s*$/.test(line) && paragraph[0]!.trim()) {
      blocks.push({ kind: "heading", level: line.startsWith("=") ? 1 : 2, text: paragraph[0]!.trim() });
      paragraph = [];
      continue;
    }
    const fence = /^(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code = [line];
      while (++index < lines.length) {
        code.push(lines[index]!);
        if (lines[index]!.startsWith(fence[1]!)) break;
      }
      blocks.push({ kind: "text", text: code.join("\n") });
      continue;
    }
    if (!line.trim()) flush();
    else paragraph.push(line);
  }
  flush();
  return blocks;
}

/** Pieces of at most `maxTokens`: sentences, and a sentence cut by length when it alone is too long. */
function piecesOf(text: string, maxTokens: number): string[] {
  if (estimateTokens(text) <= maxTokens) return [text];
  const pieces: string[] = [];
  for (const sentence of splitSentences(text)) {
    if (estimateTokens(sentence) <= maxTokens) {
      pieces.push(sentence);
      continue;
    }
    // A run-on "sentence" (a table, a log line, text without punctuation): cut by length.
    const step = CJK.test(sentence) ? maxTokens : maxTokens * 4;
    for (let start = 0; start < sentence.length; start += step) pieces.push(sentence.slice(start, start + step));
  }
  return pieces;
}

export function chunkText(text: string, options: TChunkOptions): TChunk[] {
  const chunks: TChunk[] = [];
  const headings: { level: number; text: string }[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  let currentHeading: string | null = null;

  const headingPath = () => (headings.length ? headings.map((heading) => heading.text).join(" › ") : null);
  const emit = () => {
    const content = current.join("").trim();
    if (content) chunks.push({ index: chunks.length + 1, heading: currentHeading, content });
    current = [];
    currentTokens = 0;
  };
  /** Starts the next chunk with the end of the last one (whole pieces, up to the overlap). */
  const carryOverlap = (previous: string[]) => {
    const carried: string[] = [];
    let tokens = 0;
    for (let index = previous.length - 1; index >= 0; index--) {
      const piece = previous[index]!;
      const pieceTokens = estimateTokens(piece);
      if (tokens + pieceTokens > options.overlapTokens) break;
      carried.unshift(piece);
      tokens += pieceTokens;
    }
    current = carried;
    currentTokens = tokens;
  };
  const add = (piece: string, separator: string) => {
    const text = current.length ? separator + piece : piece;
    const tokens = estimateTokens(text);
    if (currentTokens + tokens > options.chunkTokens && current.length) {
      const previous = current;
      emit();
      currentHeading = headingPath();
      carryOverlap(previous);
      // The overlap gives way to the piece: a chunk never grows past the size.
      while (current.length && currentTokens + estimateTokens(separator + piece) > options.chunkTokens) currentTokens -= estimateTokens(current.shift()!);
      const text = current.length ? separator + piece : piece;
      current.push(text);
      currentTokens += estimateTokens(text);
      return;
    }
    current.push(text);
    currentTokens += tokens;
  };

  for (const block of blocksOf(text)) {
    if (block.kind === "heading") {
      // A new section starts a new chunk (no overlap across topics), unless the chunk so far is
      // only a heading or a line: then the sections share it.
      if (currentTokens >= options.chunkTokens / 4) emit();
      while (headings.length && headings.at(-1)!.level >= block.level) headings.pop();
      headings.push({ level: block.level, text: block.text });
      add(`${"#".repeat(block.level)} ${block.text}`, "\n\n");
      currentHeading = headingPath();
      continue;
    }
    if (!current.length) currentHeading = headingPath();
    const pieces = piecesOf(block.text, options.chunkTokens);
    // Sentence segments keep their trailing spaces, so pieces of one block join as they are.
    pieces.forEach((piece, index) => add(piece, index === 0 ? "\n\n" : ""));
  }
  emit();
  return chunks;
}

import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { AppError } from "@/lib/errors";
import type { TDocumentKind } from "./document-types";

/**
 * The text of a document, as Markdown-like text whose headings the chunker can follow:
 * - text and Markdown as they are;
 * - HTML reduced to its readable part (Readability, the Firefox reader view, on a linkedom DOM;
 *   the whole body when Readability finds no article), then turned into Markdown (turndown), so
 *   headings, lists and paragraphs survive and scripts, styles and navigation do not;
 * - PDF text per page (unpdf, pdf.js), with a page limit. A PDF without extractable text (scanned
 *   pages) or one pdf.js cannot read is a clear error.
 */
export type TDocumentText = { text: string; title?: string; pageCount?: number };

function normalise(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").replace(/\u0000/g, "");
}

export function htmlToMarkdown(html: string): { text: string; title?: string } {
  const { document } = parseHTML(html);
  for (const element of document.querySelectorAll("script, style, noscript, template, iframe, object, embed, svg")) element.remove();
  const title = document.querySelector("title")?.textContent?.trim() || undefined;
  let content: string | undefined;
  try {
    // Readability changes the document it reads: give it its own copy.
    const article = new Readability(parseHTML(document.toString()).document as unknown as Document, { charThreshold: 200 }).parse();
    if (article?.content && (article.textContent?.trim().length ?? 0) > 200) content = article.content;
  } catch {
    content = undefined;
  }
  content ??= document.body?.innerHTML ?? document.toString();
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript"]);
  // Links and images keep their text only: URLs are noise for search and for the model.
  turndown.addRule("link-text", { filter: "a", replacement: (text) => text });
  turndown.addRule("image-alt", { filter: "img", replacement: (_text, node) => ((node as HTMLElement).getAttribute?.("alt") ? ` ${(node as HTMLElement).getAttribute("alt")} ` : "") });
  const markdown = turndown.turndown(content).replace(/\n{3,}/g, "\n\n").trim();
  return { text: title && !markdown.startsWith("# ") ? `# ${title}\n\n${markdown}` : markdown, title };
}

/** Opens a PDF (for the page count at upload, and for its text). */
async function openPdf(bytes: Uint8Array) {
  const { getDocumentProxy } = await import("unpdf");
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    return await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false, stopAtErrors: true });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "PasswordException") throw new AppError("bad_request", "The PDF is password-protected; remove the password and upload it again.");
    throw new AppError("bad_request", `The PDF could not be read (${(error as Error).message || name}). Is the file complete?`);
  }
}

export async function pdfPageCount(bytes: Uint8Array, maxPages: number): Promise<number> {
  const pdf = await openPdf(bytes);
  try {
    if (pdf.numPages > maxPages) throw new AppError("bad_request", `The PDF has ${pdf.numPages} pages; at most ${maxPages} are allowed (knowledge.maxPdfPages).`);
    return pdf.numPages;
  } finally {
    await pdf.destroy();
  }
}

async function pdfText(bytes: Uint8Array, maxPages: number): Promise<TDocumentText> {
  const pdf = await openPdf(bytes);
  try {
    if (pdf.numPages > maxPages) throw new AppError("bad_request", `The PDF has ${pdf.numPages} pages; at most ${maxPages} are allowed (knowledge.maxPdfPages).`);
    const { extractText } = await import("unpdf");
    let pages: string[];
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (error) {
      throw new AppError("bad_request", `The PDF's text could not be read (${(error as Error).message}).`);
    }
    const text = pages
      .map((page) => page.replace(/[ \t]+\n/g, "\n").trim())
      .filter(Boolean)
      .join("\n\n");
    if (!text.trim()) throw new AppError("bad_request", "The PDF has no text to index (scanned pages need OCR, which xclaw does not do).");
    return { text: normalise(text), pageCount: pdf.numPages };
  } finally {
    await pdf.destroy();
  }
}

export async function documentText(kind: TDocumentKind, bytes: Uint8Array, options: { maxPdfPages: number }): Promise<TDocumentText> {
  if (kind === "pdf") return pdfText(bytes, options.maxPdfPages);
  const text = normalise(new TextDecoder("utf-8").decode(bytes));
  if (kind === "html") return htmlToMarkdown(text);
  return { text };
}

import { fileTypeFromBuffer } from "file-type";
import { AppError } from "@/lib/errors";

/**
 * What a document is, decided from its content, not from what the client claims: the name's
 * extension says what it should be (txt, md, html, pdf), the first bytes say what it is (file-type
 * reads the magic numbers of a few hundred binary formats). A PDF must start like one; a text
 * document must be UTF-8 without NUL bytes; an executable, an archive or an image named
 * "report.pdf" is refused with what it really is. Names are cleaned for display and never used as
 * paths (the bytes are stored in the database).
 */
export type TDocumentKind = "text" | "markdown" | "html" | "pdf";

const KIND_BY_EXTENSION: Record<string, TDocumentKind> = {
  ".txt": "text",
  ".text": "text",
  ".md": "markdown",
  ".markdown": "markdown",
  ".html": "html",
  ".htm": "html",
  ".pdf": "pdf",
};

export const ACCEPTED_EXTENSIONS = Object.keys(KIND_BY_EXTENSION);

const KIND_LABEL: Record<TDocumentKind, string> = { text: "a text file", markdown: "a Markdown file", html: "an HTML page", pdf: "a PDF" };

/** The last path segment, without control characters or bidi overrides, at most 200 characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/^\.+/, "")
    .trim()
    .slice(0, 200);
  return cleaned || "document";
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

export function kindOfName(filename: string): TDocumentKind {
  const kind = KIND_BY_EXTENSION[extensionOf(filename)];
  if (!kind) {
    throw new AppError("unsupported_media_type", `"${filename}" cannot be added: only ${ACCEPTED_EXTENSIONS.join(", ")} files are supported.`);
  }
  return kind;
}

/** Checks the bytes against the name; returns the kind, and the text for text kinds. */
export async function detectDocument(filename: string, bytes: Uint8Array): Promise<{ kind: TDocumentKind; text?: string }> {
  if (!bytes.byteLength) throw new AppError("bad_request", `"${filename}" is empty (0 bytes).`);
  const declared = kindOfName(filename);
  const detected = await fileTypeFromBuffer(bytes);
  if (declared === "pdf") {
    if (detected?.mime === "application/pdf") return { kind: "pdf" };
    throw new AppError(
      "unsupported_media_type",
      `"${filename}" is named like a PDF but is not one: ${detected ? `its content is ${detected.mime} (.${detected.ext})` : "it does not start with %PDF-"}.`,
    );
  }
  if (detected) {
    throw new AppError("unsupported_media_type", `"${filename}" should be ${KIND_LABEL[declared]}, but its content is ${detected.mime} (.${detected.ext}).`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new AppError("unsupported_media_type", `"${filename}" should be ${KIND_LABEL[declared]} in UTF-8, but it is not valid UTF-8 text.`);
  }
  if (text.includes("\u0000")) throw new AppError("unsupported_media_type", `"${filename}" should be ${KIND_LABEL[declared]}, but it contains binary data (NUL bytes).`);
  return { kind: declared, text };
}

import { parse, type ContentType } from "content-type";
import { AppError } from "@/lib/errors";

/**
 * Reading request bodies safely: a size cap enforced while the stream is read, a real media-type
 * parser, and a guard against strings PostgreSQL cannot store. Used by `readJson` (every JSON
 * route) and by the next-auth adapter (the sign-in form), so the rules are the same everywhere.
 */

/**
 * A Content-Type value parsed by `content-type`: the type in lower case ("multipart/form-data"),
 * parameter names in lower case, quoted values unquoted. Undefined when there is none. The type is
 * only ever compared whole with a known one, so a malformed value simply matches nothing.
 */
export function parseMediaType(header: string | null | undefined): ContentType | undefined {
  return header ? parse(header) : undefined;
}

/**
 * `application/json` or any `application/…+json`. The type itself is compared, never a substring:
 * `text/plain;charset=application/json` is text/plain, a type browsers send cross-site without a
 * CORS preflight. JSON is UTF-8 (RFC 8259), so another declared charset is refused too.
 */
export function isJsonMediaType(header: string | null | undefined): boolean {
  const media = parseMediaType(header);
  if (!media) return false;
  if (media.type !== "application/json" && !(media.type.startsWith("application/") && media.type.endsWith("+json"))) return false;
  const charset = media.parameters.charset?.toLowerCase();
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function tooLarge(maxBytes: number): AppError {
  // The rest of the body is never read: closing the connection after the answer keeps the client
  // from pushing it through anyway (and keeps an unread body from blocking keep-alive).
  return new AppError("payload_too_large", `The request body is larger than the limit of ${formatBytes(maxBytes)}.`, {
    headers: { connection: "close" },
  });
}

/**
 * Reads the whole body, refusing it as soon as more than `maxBytes` have arrived: a declared
 * Content-Length over the limit is refused before reading anything, and a body without one (or
 * lying about it) is refused the moment the count passes the limit, without reading further.
 * The stream is not cancelled: on Node that destroys the socket before the 413 can be sent.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The body as UTF-8 text; bytes that are not UTF-8 are a 400, not silently replaced. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const bytes = await readBodyBytes(request, maxBytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request", "The request body is not valid UTF-8.");
  }
}

// U+0000 (PostgreSQL text cannot hold it: error 22021) and UTF-16 surrogates without their pair
// (they cannot be encoded as UTF-8, so they would be stored as U+FFFD, silently changing the data).
const FORBIDDEN_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasForbiddenCharacter(text: string): boolean {
  return FORBIDDEN_CHARACTER.test(text);
}

export const FORBIDDEN_CHARACTER_REASON = "contains a character that is not allowed (U+0000 or an unpaired surrogate).";

type TNode = { value: unknown; parent?: TNode; key?: string | number };

function describePath(node: TNode): string {
  const parts: (string | number)[] = [];
  for (let current: TNode | undefined = node; current?.parent; current = current.parent) parts.push(current.key!);
  return parts.reverse().map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

/**
 * Walks a parsed JSON value (iteratively, with parent links instead of copied paths: a hostile
 * body can nest a hundred thousand levels) and throws a 400 naming the first string or field name
 * with a forbidden character. One check here covers every JSON route, including fields added later.
 */
export function assertCleanStrings(value: unknown): void {
  const stack: TNode[] = [{ value }];
  while (stack.length) {
    const node = stack.pop()!;
    const current = node.value;
    if (typeof current === "string") {
      if (hasForbiddenCharacter(current)) {
        throw new AppError("bad_request", `${node.parent ? describePath(node) : "The request body"} ${FORBIDDEN_CHARACTER_REASON}`);
      }
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], parent: node, key: index });
    } else if (current && typeof current === "object") {
      const entries = Object.entries(current);
      for (const [key] of entries) {
        if (hasForbiddenCharacter(key)) {
          throw new AppError("bad_request", `A field name${node.parent ? ` in ${describePath(node)}` : ""} ${FORBIDDEN_CHARACTER_REASON}`);
        }
      }
      for (let index = entries.length - 1; index >= 0; index--) stack.push({ value: entries[index]![1], parent: node, key: entries[index]![0] });
    }
  }
}

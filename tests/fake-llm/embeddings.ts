import { createHash } from "node:crypto";
import { estimateTokens } from "./text-pieces";

export const DEFAULT_EMBEDDING_DIMENSIONS = 8;

/**
 * A unit vector derived from a hash of the text: the same text always gives the same vector and
 * different texts give unrelated ones, which is all a memory/search test needs to check that the
 * right text was embedded and stored. Values are rounded to float32 so that the JSON (float) and
 * the base64 encodings carry exactly the same numbers.
 */
export function embeddingFor(text: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block++) {
    const digest = createHash("sha256").update(`${block}\u0000${text}`).digest();
    for (let offset = 0; offset + 4 <= digest.length && raw.length < dimensions; offset += 4) {
      // Maps the 32-bit word onto [-1, 1) so that vectors point in every direction, not just the positive orthant.
      raw.push(digest.readUInt32LE(offset) / 2 ** 31 - 1);
    }
  }
  const length = Math.sqrt(raw.reduce((sum, value) => sum + value * value, 0)) || 1;
  return raw.map((value) => Math.fround(value / length));
}

/**
 * Models named "fake-semantic…" get bag-of-words vectors instead: the sum of one hashed direction
 * per word (lower-cased, split with Intl.Segmenter, so Chinese works too), normalised. Texts that
 * share words are close and texts with the same words are identical (cosine 1), which is the
 * similarity a recall, duplicate or ranking test needs; unrelated texts stay near 0.
 */
const wordSegmenter = new Intl.Segmenter("und", { granularity: "word" });

export function semanticEmbeddingFor(text: string, dimensions: number): number[] {
  const sum = new Array<number>(dimensions).fill(0);
  for (const { segment, isWordLike } of wordSegmenter.segment(text.toLowerCase())) {
    if (!isWordLike) continue;
    const word = embeddingFor(`word:${segment}`, dimensions);
    for (let index = 0; index < dimensions; index++) sum[index]! += word[index]!;
  }
  const length = Math.sqrt(sum.reduce((total, value) => total + value * value, 0));
  if (!length) return embeddingFor(text, dimensions);
  return sum.map((value) => Math.fround(value / length));
}

/** The encoding the openai SDK asks for by default (it decodes it back into numbers itself). */
function toBase64Float32(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

/** Token-id inputs (number arrays) are embedded by their JSON text: still deterministic. */
function inputTexts(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input)) {
    if (input.length > 0 && input.every((item) => typeof item === "number")) return [JSON.stringify(input)];
    return input.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  }
  return [];
}

export type TEmbeddingsRequest = { input?: unknown; dimensions?: unknown; model?: unknown; encoding_format?: unknown };

export function embeddingsResponse(body: TEmbeddingsRequest) {
  const texts = inputTexts(body.input);
  const dimensions = typeof body.dimensions === "number" && body.dimensions > 0 ? Math.floor(body.dimensions) : DEFAULT_EMBEDDING_DIMENSIONS;
  const promptTokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    object: "list",
    data: texts.map((text, index) => {
      const vector = typeof body.model === "string" && body.model.startsWith("fake-semantic") ? semanticEmbeddingFor(text, dimensions) : embeddingFor(text, dimensions);
      return { object: "embedding", index, embedding: body.encoding_format === "base64" ? toBase64Float32(vector) : vector };
    }),
    model: typeof body.model === "string" ? body.model : "fake-embedding",
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

import { createHash } from "node:crypto";
import OpenAI from "openai";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { serverFetch } from "@/lib/net/server-fetch";
import { createLogger } from "@/lib/observability/logger";
import { backoffDelayMs, classifyError } from "@/lib/providers/provider-chain";
import { retryPolicy } from "@/lib/providers/registry";
import { readCachedEmbeddings, writeCachedEmbeddings } from "./embedding-cache";

/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint. Texts go in batches
 * (`embeddings.batchSize`, `embeddings.concurrency` in flight), each batch retried like model calls
 * (429, 408, 409, 5xx, network errors and timeouts, with backoff and retry-after; other 4xx fail
 * at once), and every vector is cached by the SHA-256 of its text per model, so re-indexing
 * unchanged text, repeated queries and duplicate memories cost no request.
 *
 * A model is identified by its key "<model>@<dimensions>": rows remember the key of their vector
 * and searches use only rows of the configured key, so two models' vectors are never compared.
 */
const log = createLogger("embeddings");

export type TEmbeddingSettings = {
  model: string;
  dimensions: number;
  /** "<model>@<dimensions>", stored with every vector. */
  modelKey: string;
  baseUrl?: string;
  apiKey?: string;
  batchSize: number;
  concurrency: number;
  maxInputCharacters: number;
  timeoutMs: number;
  sendDimensions: boolean;
};

export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "EmbeddingError";
  }
}

export function modelKeyOf(model: string, dimensions: number): string {
  return `${model}@${dimensions}`;
}

/** The dimensions encoded in a model key ("text-embedding-3-small@1536" → 1536). */
export function dimensionsOfModelKey(modelKey: string): number {
  const dimensions = Number(modelKey.slice(modelKey.lastIndexOf("@") + 1));
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`not an embedding model key: ${modelKey}`);
  return dimensions;
}

/** The configured embedding provider, or undefined when search is full-text only. */
export function embeddingSettings(config: TBehaviourConfig = getBehaviourConfig()): TEmbeddingSettings | undefined {
  const settings = config.embeddings;
  if (settings.mode === "off") return undefined;
  const variables = environment();
  const own = Boolean(variables.EMBEDDINGS_BASE_URL || variables.EMBEDDINGS_API_KEY);
  const baseUrl = own ? variables.EMBEDDINGS_BASE_URL : variables.OPENAI_BASE_URL;
  const apiKey = own ? variables.EMBEDDINGS_API_KEY : variables.OPENAI_API_KEY;
  if (!baseUrl && !apiKey) return undefined;
  const model = variables.EMBEDDINGS_MODEL ?? settings.model;
  return {
    model,
    dimensions: settings.dimensions,
    modelKey: modelKeyOf(model, settings.dimensions),
    baseUrl: baseUrl || undefined,
    apiKey: apiKey || undefined,
    batchSize: settings.batchSize,
    concurrency: settings.concurrency,
    maxInputCharacters: settings.maxInputCharacters,
    timeoutMs: settings.timeoutSeconds * 1000,
    sendDimensions: settings.sendDimensions,
  };
}

export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const clients = new Map<string, OpenAI>();

function clientFor(settings: TEmbeddingSettings): OpenAI {
  const key = `${settings.baseUrl ?? ""}\u0000${settings.apiKey ?? ""}\u0000${settings.timeoutMs}`;
  let client = clients.get(key);
  if (!client) {
    // Local servers (Ollama, vLLM) need no key, but the SDK insists on one. Retries are ours.
    client = new OpenAI({ apiKey: settings.apiKey || "not-needed", baseURL: settings.baseUrl, maxRetries: 0, timeout: settings.timeoutMs, fetch: serverFetch });
    clients.set(key, client);
  }
  return client;
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

async function requestBatch(settings: TEmbeddingSettings, texts: string[], signal?: AbortSignal): Promise<number[][]> {
  const response = await clientFor(settings).embeddings.create(
    {
      model: settings.model,
      input: texts,
      encoding_format: "float",
      ...(settings.sendDimensions ? { dimensions: settings.dimensions } : {}),
    },
    { signal },
  );
  const vectors: number[][] = new Array(texts.length);
  for (const item of response.data ?? []) {
    if (typeof item.index === "number" && item.index >= 0 && item.index < texts.length) vectors[item.index] = item.embedding as number[];
  }
  for (let index = 0; index < texts.length; index++) {
    const vector = vectors[index];
    if (!Array.isArray(vector)) throw new EmbeddingError(`The embeddings API returned ${response.data?.length ?? 0} vectors for ${texts.length} texts.`, false);
    if (vector.length !== settings.dimensions) {
      throw new EmbeddingError(
        `The embedding model ${settings.model} returned vectors of ${vector.length} dimensions, but embeddings.dimensions is ${settings.dimensions}. Set embeddings.dimensions to ${vector.length} in xclaw.yaml.`,
        false,
      );
    }
    if (!vector.every(Number.isFinite)) throw new EmbeddingError("The embeddings API returned a vector with a value that is not a number.", false);
  }
  return vectors;
}

/** One batch with the providers' retry policy; `attempts` 1 for latency-sensitive callers (recall). */
async function embedBatch(settings: TEmbeddingSettings, texts: string[], options: { signal?: AbortSignal; attempts?: number }): Promise<number[][]> {
  const policy = retryPolicy();
  const attempts = options.attempts ?? policy.retries + 1;
  for (let attempt = 0; ; attempt++) {
    try {
      return await requestBatch(settings, texts, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (error instanceof EmbeddingError) throw error;
      const classified = classifyError(error);
      if (!classified.retryable || attempt + 1 >= attempts) {
        throw new EmbeddingError(`Embedding with ${settings.model} failed: ${classified.description}`, classified.retryable);
      }
      const delay = backoffDelayMs(attempt, policy, classified.retryAfterMs);
      log.warn("embedding request failed, retrying", { model: settings.model, attempt, delayMs: delay, error: classified.description });
      await sleep(delay, options.signal);
    }
  }
}

/** Runs `work` over the items with at most `limit` at once, keeping the order of the results. */
async function mapWithConcurrency<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Recent query vectors in this process: recall embeds the same message once per run, not per model call. */
const recentQueries = new Map<string, number[]>();
const RECENT_QUERY_LIMIT = 500;

export type TEmbedOptions = {
  signal?: AbortSignal;
  /** Attempts per batch (default: the providers' retries + 1). */
  attempts?: number;
  /** Called after each batch with the number of texts done so far. */
  onProgress?: (done: number, total: number) => void;
};

/**
 * Vectors for the texts, in order, from the cache where possible. Throws EmbeddingError when the
 * API fails (after retries) or answers with the wrong size.
 */
export async function embedTexts(settings: TEmbeddingSettings, texts: string[], options: TEmbedOptions = {}): Promise<number[][]> {
  const inputs = texts.map((text) => text.slice(0, settings.maxInputCharacters));
  const hashes = inputs.map(contentHash);
  const vectors: (number[] | undefined)[] = hashes.map((hash) => recentQueries.get(`${settings.modelKey}\u0000${hash}`));
  const missingHashes = [...new Set(hashes.filter((hash, index) => !vectors[index]))];
  if (missingHashes.length) {
    const cached = await readCachedEmbeddings(settings.modelKey, missingHashes);
    hashes.forEach((hash, index) => (vectors[index] ??= cached.get(hash)));
  }
  // Each distinct missing text once.
  const toEmbed = new Map<string, string>();
  hashes.forEach((hash, index) => {
    if (!vectors[index] && !toEmbed.has(hash)) toEmbed.set(hash, inputs[index]!);
  });
  const total = toEmbed.size;
  if (total) {
    const entries = [...toEmbed.entries()];
    const batches: [string, string][][] = [];
    for (let start = 0; start < entries.length; start += settings.batchSize) batches.push(entries.slice(start, start + settings.batchSize));
    let done = 0;
    const fresh = new Map<string, number[]>();
    await mapWithConcurrency(batches, settings.concurrency, async (batch) => {
      const result = await embedBatch(
        settings,
        batch.map(([, text]) => text),
        options,
      );
      const rows = batch.map(([hash], index) => ({ hash, vector: result[index]! }));
      for (const row of rows) fresh.set(row.hash, row.vector);
      await writeCachedEmbeddings(settings.modelKey, rows);
      done += batch.length;
      options.onProgress?.(done, total);
    });
    hashes.forEach((hash, index) => (vectors[index] ??= fresh.get(hash)));
  }
  return vectors.map((vector) => vector!);
}

/** A query's vector, remembered in this process for repeated queries. */
export async function embedQuery(settings: TEmbeddingSettings, text: string, options: TEmbedOptions = {}): Promise<number[]> {
  const hash = contentHash(text.slice(0, settings.maxInputCharacters));
  const key = `${settings.modelKey}\u0000${hash}`;
  const remembered = recentQueries.get(key);
  if (remembered) return remembered;
  const [vector] = await embedTexts(settings, [text], options);
  recentQueries.set(key, vector!);
  if (recentQueries.size > RECENT_QUERY_LIMIT) recentQueries.delete(recentQueries.keys().next().value!);
  return vector!;
}

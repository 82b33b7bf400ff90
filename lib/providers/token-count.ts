import { LRUCache } from "lru-cache";
import type { Tiktoken } from "js-tiktoken/lite";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import type { TContentPart, TMessage, TToolDefinition } from "./types";

/**
 * Token counts for the model a request goes to (issue 28, layer 1). OpenAI models are counted
 * exactly with their own BPE (js-tiktoken): o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the
 * o-series and gpt-oss; cl100k_base for gpt-4, gpt-3.5 and the text-embedding models. No tokenizer
 * for other families (Claude, Qwen, DeepSeek, GLM, Llama…) runs here, so they are *estimated*:
 * the cl100k_base count times a factor per model that starts at 1.15 and is calibrated, for the
 * rest of the process, against the input tokens the provider reports for each request
 * (`calibrateTokenCounts`, an exponential average of reported ÷ counted, kept within 0.8–2.5).
 * cl100k_base counts Chinese at about one token per character, as those tokenizers do, unlike
 * the old characters ÷ 4 estimate.
 *
 * Counts are cached: per message object (the loop's history keeps its objects from one model call
 * to the next, so each message is encoded once per run) and per long text (an LRU), raw BPE counts
 * in both, so a recalibrated factor applies at once.
 */
/** "characters": the fallback estimate, used only if a BPE cannot be loaded in this process. */
export type TTokenizerName = TBpeName | "characters";
type TBpeName = "o200k_base" | "cl100k_base";

export type TTokenCounter = {
  model: string;
  tokenizer: TTokenizerName;
  /** The model's own tokenizer (true) or the calibrated estimate (false). */
  exact: boolean;
  text(text: string): number;
  message(message: TMessage): number;
  messages(messages: readonly TMessage[]): number;
  tools(tools: readonly TToolDefinition[]): number;
};

/** A rough price for an image part; providers charge by size (OpenAI ~765 for 1024², Claude ~1,600 per megapixel). */
export const IMAGE_TOKENS = 1_000;
/** Role markers and separators the chat formats add around each message. */
const MESSAGE_OVERHEAD_TOKENS = 4;
const DEFAULT_ESTIMATE_FACTOR = 1.15;

const O200K = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)/;
const CL100K = /^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/;

/** Which BPE counts a model's text, and whether it is the model's own. */
export function tokenizerFor(model: string): { tokenizer: TBpeName; exact: boolean } {
  // "openai/gpt-4o" (gateways such as OpenRouter) is still gpt-4o.
  const name = model.trim().toLowerCase().split("/").pop() ?? "";
  if (O200K.test(name)) return { tokenizer: "o200k_base", exact: true };
  if (CL100K.test(name)) return { tokenizer: "cl100k_base", exact: true };
  return { tokenizer: "cl100k_base", exact: false };
}

type TState = {
  encoders: Map<TBpeName, Promise<Tiktoken>>;
  factors: Map<string, number>;
  texts: Map<TTokenizerName, LRUCache<string, number>>;
  messages: WeakMap<TMessage, Map<TTokenizerName, number>>;
};
const state = processSingleton("providers.token-count", (): TState => ({ encoders: new Map(), factors: new Map(), texts: new Map(), messages: new WeakMap() }));
// Short texts encode faster than a cache lookup pays for.
const CACHED_TEXT_CHARACTERS = 256;

type TEncoder = Pick<Tiktoken, "encode">;

// CJK characters are about a token each, other text about four characters per token: the estimate
// xclaw used before real tokenizers, kept for a process that cannot load them.
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;
const characterEstimate: TEncoder = {
  encode: (text: string) => {
    const cjk = text.match(CJK)?.length ?? 0;
    return { length: cjk + Math.ceil((text.length - cjk) / 4) } as number[];
  },
};
const log = createLogger("tokens");

function loadEncoder(name: TBpeName): Promise<Tiktoken> {
  let encoder = state.encoders.get(name);
  if (!encoder) {
    // Loaded on first use (the o200k ranks take about half a second to build), once per process.
    encoder = (async () => {
      const { Tiktoken } = await import("js-tiktoken/lite");
      const ranks = name === "o200k_base" ? (await import("js-tiktoken/ranks/o200k_base")).default : (await import("js-tiktoken/ranks/cl100k_base")).default;
      return new Tiktoken(ranks);
    })();
    encoder.catch(() => state.encoders.delete(name));
    state.encoders.set(name, encoder);
  }
  return encoder;
}

/**
 * Builds the tokenizers these models count with, before the server takes requests: building the
 * o200k ranks blocks the event loop for 0.5-3 s, which on a first chat would stall every other
 * request of the process (and delay its first model call by as much).
 */
export async function preloadTokenizers(models: readonly string[]): Promise<void> {
  const names = new Set(models.map((model) => tokenizerFor(model).tokenizer));
  await Promise.all([...names].map((name) => loadEncoder(name).catch((error: unknown) => log.warn("could not preload a tokenizer", { tokenizer: name, error }))));
}

// js-tiktoken's merge is quadratic in the length of one pre-tokenised piece: 3,500 CJK characters
// without punctuation took 11 s, 12,000 "=" 21 s. Runs of this many characters without whitespace
// (a minified file, a rule of "=", a wall of CJK) are counted in slices of that length, which
// bounds the cost at the price of at most a token or so per slice.
const RUN_SLICE = 64;
const LONG_RUN = new RegExp(`\\S{${RUN_SLICE + 1},}`, "g");

function encodedLength(encoder: TEncoder, text: string): number {
  if (!LONG_RUN.test(text)) return encoder.encode(text, "all").length;
  LONG_RUN.lastIndex = 0;
  let count = 0;
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > from) count += encoder.encode(text.slice(from, match.index), "all").length;
    for (let at = 0; at < match[0].length; at += RUN_SLICE) count += encoder.encode(match[0].slice(at, at + RUN_SLICE), "all").length;
    from = match.index + match[0].length;
  }
  if (from < text.length) count += encoder.encode(text.slice(from), "all").length;
  return count;
}

function rawTextCounter(name: TTokenizerName, encoder: TEncoder): (text: string) => number {
  let cache = state.texts.get(name);
  // Bounded by the characters it keys on (the texts are mostly shared with the history anyway).
  if (!cache) state.texts.set(name, (cache = new LRUCache<string, number>({ max: 5_000, maxSize: 8_000_000, sizeCalculation: (_count, text) => text.length })));
  const texts = cache;
  return (text) => {
    if (!text) return 0;
    if (text.length < CACHED_TEXT_CHARACTERS) return encodedLength(encoder, text);
    const known = texts.get(text);
    if (known !== undefined) return known;
    const count = encodedLength(encoder, text);
    texts.set(text, count);
    return count;
  };
}

function partsTokens(parts: readonly TContentPart[], count: (text: string) => number): number {
  return parts.reduce((sum, part) => sum + (part.type === "text" ? count(part.text) : IMAGE_TOKENS), 0);
}

function rawMessageTokens(message: TMessage, count: (text: string) => number): number {
  if (message.role === "assistant") {
    const calls = message.toolCalls.reduce((sum, call) => sum + count(call.name) + count(JSON.stringify(call.arguments ?? {})), 0);
    return MESSAGE_OVERHEAD_TOKENS + count(message.text) + calls;
  }
  return MESSAGE_OVERHEAD_TOKENS + partsTokens(message.content, count);
}

/** The counter for a model: its tokenizer loaded (once per process), its calibration applied. */
export async function tokenCounterFor(model: string): Promise<TTokenCounter> {
  const family = tokenizerFor(model);
  let tokenizer: TTokenizerName = family.tokenizer;
  let exact = family.exact;
  let encoder: TEncoder;
  try {
    encoder = await loadEncoder(family.tokenizer);
  } catch (error) {
    // A run must never fail for want of a tokenizer: the old estimate stands in, and says so.
    log.warn("could not load a tokenizer; estimating from characters", { tokenizer: family.tokenizer, error });
    [tokenizer, exact, encoder] = ["characters", false, characterEstimate];
  }
  const raw = rawTextCounter(tokenizer, encoder);
  const scale = (count: number) => (exact ? count : Math.ceil(count * (state.factors.get(model) ?? DEFAULT_ESTIMATE_FACTOR)));
  const rawMessage = (message: TMessage) => {
    let counts = state.messages.get(message);
    if (!counts) state.messages.set(message, (counts = new Map()));
    let count = counts.get(tokenizer);
    if (count === undefined) counts.set(tokenizer, (count = rawMessageTokens(message, raw)));
    return count;
  };
  return {
    model,
    tokenizer,
    exact,
    text: (text) => scale(raw(text)),
    message: (message) => scale(rawMessage(message)),
    messages: (messages) => scale(messages.reduce((sum, message) => sum + rawMessage(message), 0)),
    tools: (tools) => (tools.length ? scale(raw(JSON.stringify(tools))) : 0),
  };
}

/**
 * After a model call: what the provider reported as input tokens against what the counter said,
 * for models without their own tokenizer here. Reports far off (a cache-read discount, a provider
 * that reports nothing) are ignored rather than learnt.
 */
export function calibrateTokenCounts(model: string, counted: number, reported: number): void {
  const { exact } = tokenizerFor(model);
  if (exact || counted <= 0 || reported <= 0) return;
  const factor = state.factors.get(model) ?? DEFAULT_ESTIMATE_FACTOR;
  const ratio = (reported / counted) * factor;
  if (ratio < 0.5 || ratio > 4) return;
  state.factors.set(model, Math.min(2.5, Math.max(0.8, factor * 0.7 + ratio * 0.3)));
}

/** The factor the estimate currently applies for a model (1 for exact tokenizers). */
export function tokenEstimateFactor(model: string): number {
  return tokenizerFor(model).exact ? 1 : (state.factors.get(model) ?? DEFAULT_ESTIMATE_FACTOR);
}

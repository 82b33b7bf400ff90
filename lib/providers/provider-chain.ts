import type { TModelEvent, TModelRequest, TProvider, TToolCall, TUsage } from "./types";

/**
 * Calls providers in order with one retry policy for all of them: 429, 5xx, network errors and
 * timeouts are retried with exponential backoff and jitter (honouring `retry-after`), other 4xx
 * errors move on to the next provider at once. Only when every provider has failed does the
 * caller get an error, and it names each provider's failure.
 *
 * Text streams live; tool calls and usage are held until an attempt finishes, so a stream that
 * breaks midway never leaves half a turn behind. When an attempt fails after text was shown, a
 * `text-discard` event tells the consumer to drop that text before the next attempt streams.
 */
export type TRetryPolicy = {
  /** Retries per provider after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** An attempt fails when no stream event arrives for this long (first byte or between chunks). */
  attemptTimeoutMs: number;
};

export type TChainEvent =
  | { type: "attempt-start"; provider: string; model: string; attempt: number }
  | { type: "attempt-failed"; provider: string; model: string; attempt: number; error: string; willRetry: boolean }
  | { type: "text-discard" }
  | { type: "text-delta"; text: string }
  | { type: "turn-complete"; provider: string; model: string; toolCalls: TToolCall[]; usage: TUsage; finishReason: (TModelEvent & { type: "finish" })["reason"] };

export class ProviderChainError extends Error {
  constructor(readonly failures: { provider: string; model: string; error: string }[]) {
    // With one provider in the chain, "every provider" would promise a fallback that is not there.
    super(
      failures.length > 1
        ? `Every model provider failed: ${failures.map((failure) => `${failure.provider} (${failure.model}): ${failure.error}`).join("; ")}.`
        : failures.length === 1
          ? `The model provider failed: ${failures[0]!.provider} (${failures[0]!.model}): ${failures[0]!.error}. No other provider is configured to fall back to.`
          : "No model provider is configured.",
    );
    this.name = "ProviderChainError";
  }
}

class AttemptTimeoutError extends Error {
  constructor(milliseconds: number) {
    super(`no response for ${Math.round(milliseconds / 1000)} s`);
    this.name = "AttemptTimeoutError";
  }
}

export type TErrorClass = { retryable: boolean; retryAfterMs?: number; description: string };

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** Parses `retry-after` (seconds or an HTTP date) and `retry-after-ms`. */
export function parseRetryAfter(headers: unknown, now = Date.now()): number | undefined {
  const milliseconds = Number(headerValue(headers, "retry-after-ms"));
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headerValue(headers, "retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

export function classifyError(error: unknown): TErrorClass {
  if (error instanceof AttemptTimeoutError) return { retryable: true, description: `timed out (${error.message})` };
  const status = (error as { status?: unknown }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof status === "number") {
    const retryAfterMs = parseRetryAfter((error as { headers?: unknown }).headers);
    const short = message.replace(/\s+/g, " ").slice(0, 200);
    if (status === 429 || status === 408 || status === 409 || status >= 500) return { retryable: true, retryAfterMs, description: `HTTP ${status} ${short}` };
    return { retryable: false, description: `HTTP ${status} ${short}` };
  }
  const name = error instanceof Error ? error.name : "";
  // Network failures, dropped streams and SDK connection/timeout errors carry no HTTP status.
  if (/Connection|Timeout|Network|Fetch|Socket|Terminated|Aborted|TypeError/i.test(name) || /ECONN|EPIPE|ETIMEDOUT|socket|terminated|network|fetch failed|premature|closed/i.test(message)) {
    return { retryable: true, description: message.slice(0, 200) || name };
  }
  return { retryable: false, description: message.slice(0, 200) || name || "unknown error" };
}

/** Exponential backoff with full jitter, never shorter than the server's retry-after. */
export function backoffDelayMs(attempt: number, policy: TRetryPolicy, retryAfterMs?: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.min(Math.max(jittered, retryAfterMs ?? 0), Math.max(policy.maxDelayMs, retryAfterMs ?? 0)));
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Iterates a provider stream, failing the attempt when it stays silent longer than the timeout. */
async function* withIdleTimeout(provider: TProvider, request: TModelRequest, timeoutMs: number): AsyncIterable<TModelEvent> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener("abort", forwardAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new AttemptTimeoutError(timeoutMs));
    }, timeoutMs);
  };
  try {
    arm();
    const iterator = provider.stream({ ...request, signal: controller.signal })[Symbol.asyncIterator]();
    // A hung connection may ignore the abort signal; racing against it guarantees we move on.
    // One promise (and one listener) per attempt, not per chunk.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    while (true) {
      const next = await Promise.race([iterator.next(), aborted]).catch((error: unknown) => {
        if (timedOut) throw new AttemptTimeoutError(timeoutMs);
        throw error;
      });
      if (next.done) return;
      arm();
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", forwardAbort);
    if (!controller.signal.aborted) controller.abort();
  }
}

export async function* streamWithFallback(
  providers: TProvider[],
  request: TModelRequest,
  policy: TRetryPolicy,
  options: { random?: () => number; sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void> } = {},
): AsyncIterable<TChainEvent> {
  const wait = options.sleep ?? sleep;
  const failures: { provider: string; model: string; error: string }[] = [];
  for (const provider of providers) {
    for (let attempt = 0; attempt <= policy.retries; attempt++) {
      if (request.signal?.aborted) throw request.signal.reason;
      yield { type: "attempt-start", provider: provider.name, model: provider.model, attempt };
      let textShown = false;
      const toolCalls: TToolCall[] = [];
      let usage: TUsage = { inputTokens: 0, outputTokens: 0 };
      let finishReason: (TModelEvent & { type: "finish" })["reason"] = "stop";
      try {
        for await (const event of withIdleTimeout(provider, request, policy.attemptTimeoutMs)) {
          if (event.type === "text-delta") {
            if (!event.text) continue;
            textShown = true;
            yield event;
          } else if (event.type === "tool-call") toolCalls.push(event.call);
          else if (event.type === "usage") usage = event.usage;
          else finishReason = event.reason;
        }
        yield { type: "turn-complete", provider: provider.name, model: provider.model, toolCalls, usage, finishReason };
        return;
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        const classified = classifyError(error);
        const willRetry = classified.retryable && attempt < policy.retries;
        if (textShown) yield { type: "text-discard" };
        yield { type: "attempt-failed", provider: provider.name, model: provider.model, attempt, error: classified.description, willRetry };
        if (!willRetry) {
          failures.push({
            provider: provider.name,
            model: provider.model,
            error: attempt > 0 ? `${classified.description} (after ${attempt + 1} attempts)` : classified.description,
          });
          break;
        }
        await wait(backoffDelayMs(attempt, policy, classified.retryAfterMs, options.random), request.signal);
      }
    }
  }
  throw new ProviderChainError(failures);
}

/** One question, one text answer through the chain, without tools. Text from an attempt that broke midway is dropped with it. */
export async function completeText(
  providers: TProvider[],
  question: { system: string; user: string; maxOutputTokens: number; signal?: AbortSignal },
  policy: TRetryPolicy,
): Promise<string> {
  let text = "";
  const request: TModelRequest = {
    system: question.system,
    messages: [{ role: "user", content: [{ type: "text", text: question.user }] }],
    tools: [],
    maxOutputTokens: question.maxOutputTokens,
    signal: question.signal,
  };
  for await (const event of streamWithFallback(providers, request, policy)) {
    if (event.type === "text-delta") text += event.text;
    else if (event.type === "text-discard") text = "";
  }
  return text;
}

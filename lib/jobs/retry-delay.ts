import { RetryAfterError } from "inngest";

/** How long a job run waits before its next attempt, on the embedded runner (Inngest has its own). */
const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;

/** Exponential backoff with full jitter: a random delay up to base · 2^attempt, capped. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** The delay a handler asked for by throwing RetryAfterError (seconds, or a date), if it did. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof RetryAfterError)) return undefined;
  const value = error.retryAfter;
  const asNumber = Number(value);
  if (Number.isFinite(asNumber)) return Math.max(0, asNumber);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

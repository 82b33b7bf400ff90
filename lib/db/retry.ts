import { createLogger } from "@/lib/observability/logger";

/**
 * Retries a database write that failed for a reason that says nothing about the write itself: a
 * dropped connection, a pool that could not hand out a connection in time, a restarting server, a
 * serialization failure or deadlock. A run must not be lost to a blip; an error in the statement
 * (a constraint, bad data) is thrown at once.
 */
const log = createLogger("db");

const TRANSIENT_SQLSTATES = new Set(["40001", "40P01", "57P01", "57P02", "57P03", "53300", "08000", "08003", "08006", "08001", "08004"]);
const TRANSIENT_MESSAGES = /timeout exceeded when trying to connect|Unable to start a transaction in the given time|Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|Client has encountered a connection error/i;

export function isTransientDatabaseError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (typeof candidate.code === "string" && TRANSIENT_SQLSTATES.has(candidate.code)) return true;
    if (typeof candidate.message === "string" && TRANSIENT_MESSAGES.test(candidate.message)) return true;
    current = candidate.cause ?? candidate.meta?.driverAdapterError;
  }
  return false;
}

export async function withDatabaseRetry<T>(what: string, operation: () => Promise<T>, options: { attempts?: number; baseDelayMs?: number } = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= attempts || !isTransientDatabaseError(error)) throw error;
      const delay = Math.min(5_000, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      log.warn("transient database error, retrying", { what, attempt, delayMs: Math.round(delay), error });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

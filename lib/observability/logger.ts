import { AsyncLocalStorage } from "node:async_hooks";
import { environment } from "@/lib/config/environment";

/**
 * Structured logs: one JSON object per line on stdout (stderr for errors), with the request id of
 * the request being served. Field names that look like secrets are redacted wherever they appear,
 * so a careless `log.info("x", { body })` cannot leak a password or a token.
 */
export type TLogLevel = "debug" | "info" | "warn" | "error";
type TFields = Record<string, unknown>;

const LEVEL_RANK: Record<TLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api[-_]?key|credential|session[-_]?version/i;
const REDACTED = "[redacted]";

const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** LOG_LEVEL and XCLAW_LOG_SILENT; the defaults while the environment is invalid, so that the problem itself can be logged. */
function logSettings(): { level: TLogLevel; silent: boolean } {
  try {
    const { LOG_LEVEL, XCLAW_LOG_SILENT } = environment();
    return { level: LOG_LEVEL ?? "info", silent: XCLAW_LOG_SILENT };
  } catch {
    return { level: "info", silent: false };
  }
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[depth]";
  if (value instanceof Error) return serializeError(value);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value && typeof value === "object") {
    const out: TFields = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : redact(item, depth + 1);
    }
    return out;
  }
  return value;
}

function serializeError(error: Error): TFields {
  const out: TFields = { name: error.name, message: error.message };
  if ("code" in error) out.code = (error as { code?: unknown }).code;
  if (error.stack) out.stack = error.stack.split("\n").slice(0, 8).join("\n");
  if (error.cause instanceof Error) out.cause = serializeError(error.cause);
  return out;
}

function write(level: TLogLevel, scope: string | undefined, message: string, fields?: TFields) {
  const settings = logSettings();
  if (settings.silent || LEVEL_RANK[level] < LEVEL_RANK[settings.level]) return;
  const line: TFields = { time: new Date().toISOString(), level, msg: message };
  if (scope) line.scope = scope;
  const requestId = currentRequestId();
  if (requestId) line.requestId = requestId;
  if (fields) Object.assign(line, redact(fields) as TFields);
  const text = JSON.stringify(line) + "\n";
  if (level === "error") process.stderr.write(text);
  else process.stdout.write(text);
}

export type TLogger = Record<TLogLevel, (message: string, fields?: TFields) => void>;

export function createLogger(scope?: string): TLogger {
  return {
    debug: (message, fields) => write("debug", scope, message, fields),
    info: (message, fields) => write("info", scope, message, fields),
    warn: (message, fields) => write("warn", scope, message, fields),
    error: (message, fields) => write("error", scope, message, fields),
  };
}

export const log = createLogger();

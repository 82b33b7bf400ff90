import { NonRetriableError } from "inngest";

/**
 * Step results are stored as JSON and returned on replay, so they must survive JSON unchanged in
 * meaning and fit the size limit. A value that would be silently mangled (a Map becomes {}, a
 * function disappears) is refused like one that cannot be encoded at all (BigInt, cycles). These
 * failures are deterministic, so they are NonRetriableError: retrying would fail the same way.
 * Inngest's NonRetriableError is used on both backends, so handlers throw one type.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function refuse(_key: string, value: unknown): unknown {
  if (typeof value === "function") throw new TypeError("a function is not data");
  if (typeof value === "symbol") throw new TypeError("a symbol is not data");
  if (value instanceof Map || value instanceof Set) throw new TypeError(`a ${value instanceof Map ? "Map" : "Set"} would be stored as {}`);
  return value;
}

/**
 * Returns the JSON text and the value as a replay will see it (`undefined` → null, as on Inngest).
 * `what` names the value in errors, e.g. `step "fetch-user"`.
 */
export function toStoredJson(what: string, value: unknown, limitBytes: number): { json: string; value: unknown } {
  let json: string | undefined;
  try {
    json = JSON.stringify(value === undefined ? null : value, refuse);
  } catch (error) {
    throw new NonRetriableError(
      `${what} returned a value that is not JSON-serialisable (${(error as Error).message}). Return plain data: objects, arrays, strings, numbers, booleans or null.`,
    );
  }
  if (json === undefined) throw new NonRetriableError(`${what} returned a value that is not JSON-serialisable. Return plain data.`);
  const bytes = Buffer.byteLength(json);
  if (bytes > limitBytes) {
    throw new NonRetriableError(
      `${what} returned ${formatBytes(bytes)}, more than the ${formatBytes(limitBytes)} a step may store (jobs.maxStepOutputBytes). Store large data elsewhere and return a reference to it.`,
    );
  }
  return { json, value: JSON.parse(json) };
}

/** Words for anything a handler threw, including non-Error values (`throw "nope"`). */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  let text: string;
  try {
    text = typeof thrown === "string" ? JSON.stringify(thrown) : (JSON.stringify(thrown) ?? String(thrown));
  } catch {
    text = String(thrown);
  }
  return `the job threw a non-Error value: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
}

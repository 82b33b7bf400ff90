/**
 * PostgreSQL cannot store some strings JavaScript can hold: text and jsonb refuse U+0000 (22021,
 * 22P05), and jsonb refuses lone UTF-16 surrogates. Command output, web pages and model arguments
 * contain both (any binary output, a hostile page), so everything written to the database passes
 * through here: NUL becomes U+FFFD and strings are made well-formed. Storing a slightly changed
 * character beats losing the whole step.
 */
const UNSTORABLE_ESCAPE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD").toWellFormed() : text.toWellFormed();
}

function clean(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(clean);
  if (value && typeof value === "object") {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) result[storableText(key)] = clean(item);
    return result;
  }
  return value;
}

/**
 * The JSON text of a value, safe for a jsonb column. JSON.stringify escapes NUL as \u0000 and a
 * lone surrogate as \udXXX (well-formed pairs stay raw), so one search finds both; only then is the
 * value walked and cleaned.
 */
export function storableJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return UNSTORABLE_ESCAPE.test(text) ? JSON.stringify(clean(value)) : text;
}

/** A copy of a JSON value that PostgreSQL can store (for Prisma's Json fields). */
export function storableJson<T>(value: T): T {
  return UNSTORABLE_ESCAPE.test(JSON.stringify(value) ?? "") ? (clean(value) as T) : value;
}

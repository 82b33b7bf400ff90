/**
 * One shared copy of a text that many runs build identically (the system prompt, the prompt with
 * the skills catalog after it). Each run used to hold its own copies — about 30 KB a run, a tenth
 * of what an open chat cost at 1,000 at once (heap snapshot in ARCHITECTURE.md, "Under load").
 * The fresh copy a caller built dies young; the run keeps the shared one.
 */
const MAX_TEXTS = 256;
const texts = new Map<string, string>();

export function internText(text: string): string {
  const shared = texts.get(text);
  if (shared !== undefined) {
    // Most recently used last, so the oldest goes first when the map is full.
    texts.delete(shared);
    texts.set(shared, shared);
    return shared;
  }
  if (texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value!);
  texts.set(text, text);
  return text;
}

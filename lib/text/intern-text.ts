import { LRUCache } from "lru-cache";

/**
 * One shared copy of a text that many runs build identically (the system prompt, the prompt with
 * the skills catalog after it). Each run used to hold its own copies — about 30 KB a run, a tenth
 * of what an open chat cost at 1,000 at once (heap snapshot in ARCHITECTURE.md, "Under load").
 * The fresh copy a caller built dies young; the run keeps the shared one.
 */
const texts = new LRUCache<string, string>({ max: 256 });

export function internText(text: string): string {
  const shared = texts.get(text);
  if (shared !== undefined) return shared;
  texts.set(text, text);
  return text;
}

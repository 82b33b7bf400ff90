/**
 * The seeds' optional keyword rule: a skill's body is offered when at least two words of its
 * description occur in the user's message. The seeds split on `\W+`, which throws away every
 * Chinese, Japanese or Korean character; Intl.Segmenter (ICU's dictionary word breaker, built into
 * Node) splits those into words instead, and Latin text the usual way. Latin words of three letters
 * or fewer and a few very common words are ignored as the seeds did; CJK words count from two
 * characters (single characters such as 的 or 我 carry no topic).
 */
const STOP_WORDS = new Set(["this", "that", "with", "from", "your", "have", "what", "when", "where", "which", "will", "into", "about", "them", "they", "then", "than", "also", "only", "use", "uses", "using", "used", "like", "just", "make", "more", "some", "such", "each", "other"]);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

export function keywordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const { segment, isWordLike } of segmenter.segment(text.toLowerCase())) {
    if (!isWordLike) continue;
    if (CJK.test(segment)) {
      if ([...segment].length >= 2) words.add(segment);
    } else if (segment.length > 3 && !STOP_WORDS.has(segment) && !/^\d+$/.test(segment)) {
      words.add(segment);
    }
  }
  return words;
}

/** How many of the description's keywords the message contains. */
export function keywordHits(description: string, message: string): number {
  const wanted = keywordsOf(description);
  const present = keywordsOf(message);
  let hits = 0;
  for (const word of wanted) if (present.has(word)) hits += 1;
  return hits;
}

/** The seeds' threshold: two hits, or every keyword when the description has fewer than two. */
export function matchesByKeywords(description: string, message: string, threshold = 2): boolean {
  const wanted = keywordsOf(description).size;
  if (!wanted) return false;
  return keywordHits(description, message) >= Math.min(threshold, wanted);
}

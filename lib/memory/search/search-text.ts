/**
 * Full-text search for every language, on PostgreSQL's built-in parser. That parser splits words
 * at spaces and punctuation, so Chinese or Japanese text (no spaces) would become one giant
 * "word" that no query matches. Documents and queries are therefore segmented into words with
 * Intl.Segmenter (ICU's dictionary segmentation) before `to_tsvector`, the same way on both sides.
 * Dictionary segmentation depends on context ("缩进" may be one word in a query and two in a
 * sentence), so CJK words also contribute their single characters: a query still matches, and
 * ranking prefers the rows that share whole words.
 */
const segmenter = new Intl.Segmenter("und", { granularity: "word" });

/** Han, kana, Hangul, and CJK compatibility ideographs. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Whatever is neither a letter, a mark nor a digit separates tokens (also for tsquery syntax). */
const NOT_WORD = /[^\p{L}\p{M}\p{N}]+/gu;

/** The PostgreSQL text search configuration: English stemming and stop words; other scripts pass through. */
export const TEXT_SEARCH_CONFIG = "english";

function tokensOf(text: string): string[] {
  const tokens: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text.normalize("NFKC").toLowerCase())) {
    if (!isWordLike) continue;
    for (const part of segment.replace(NOT_WORD, " ").split(" ")) {
      if (!part) continue;
      tokens.push(part);
      if (part.length > 1 && CJK.test(part)) for (const character of part) if (CJK.test(character)) tokens.push(character);
    }
  }
  return tokens;
}

/** The text that goes into `to_tsvector` for a memory or a chunk. */
export function searchableText(text: string): string {
  return tokensOf(text).join(" ");
}

/**
 * A tsquery (for `to_tsquery`) that matches rows sharing any word with the query, or null when
 * the query has no words at all. Tokens hold only letters, marks and digits, so the text cannot
 * carry tsquery operators.
 */
export function searchQuery(text: string, maxTerms = 64): string | null {
  const unique = [...new Set(tokensOf(text))].slice(0, maxTerms);
  return unique.length ? unique.join(" | ") : null;
}

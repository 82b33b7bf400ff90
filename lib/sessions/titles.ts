/**
 * Chat titles are plain text: the sidebar and the tab title show them as they are, so markdown
 * from a first message ("## Plan **now**") or from a model's summary is reduced to its words.
 */
const MAX_TITLE_CHARACTERS = 60;

export function plainTitle(text: string, maxCharacters = MAX_TITLE_CHARACTERS): string {
  const plain = text
    // Fenced code: keep nothing of the fence markers.
    .replace(/```[^\n]*\n?/g, " ")
    // Images and links keep their words: ![alt](url) → alt, [text](url) → text.
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    // HTML tags.
    .replace(/<\/?[A-Za-z][^>]*>/g, " ")
    // Headings, quotes, list markers at line starts.
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, "")
    // Emphasis, strikethrough and code markers around words (snake_case names stay as they are).
    .replace(/(\*\*|__|~~)(.+?)\1/g, "$2")
    .replace(/(^|[^\w*])\*(?!\s)([^*]+?)\*(?!\w)/g, "$1$2")
    .replace(/(^|[^\w])_(?!\s)([^_]+?)_(?!\w)/g, "$1$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
  if (plain.length <= maxCharacters) return plain;
  const cut = plain.slice(0, maxCharacters);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > maxCharacters * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

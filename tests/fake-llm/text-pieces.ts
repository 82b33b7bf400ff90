const CHARACTERS_PER_PIECE = 8;
const CHARACTERS_PER_TOKEN = 4;

/**
 * Splits text into stream deltas. Splits on code points, never inside a surrogate pair, because
 * the real APIs never send half a character and a consumer that encodes each delta on its own
 * would otherwise produce garbage that the fake, not the app, is to blame for.
 * Text with two or more characters always gives at least two pieces, so that a consumer that
 * only keeps the last delta (a classic bug) is caught.
 */
export function splitIntoPieces(text: string, requestedPieces?: number): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const defaultPieces = Math.max(2, Math.ceil(characters.length / CHARACTERS_PER_PIECE));
  const pieceCount = Math.min(characters.length, Math.max(1, Math.floor(requestedPieces ?? defaultPieces)));
  const pieces: string[] = [];
  for (let index = 0; index < pieceCount; index++) {
    const start = Math.floor((index * characters.length) / pieceCount);
    const end = Math.floor(((index + 1) * characters.length) / pieceCount);
    pieces.push(characters.slice(start, end).join(""));
  }
  return pieces;
}

/** About four characters per token, like the usual rule of thumb; never zero for non-empty text. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / CHARACTERS_PER_TOKEN));
}

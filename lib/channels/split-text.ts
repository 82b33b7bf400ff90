/**
 * A long answer as parts of at most `limit` characters, for platforms that take short messages
 * (QQ) and count every message (passive replies). Parts end at a paragraph, then a line, then a
 * sentence or a space when one is near the limit, so a part rarely stops mid-word; a surrogate
 * pair (emoji) is never cut in half.
 */
const BREAKS = [/\n\n/g, /\n/g, /[.!?。！？]\s*/g, /\s/g];

function cutAt(text: string, limit: number): number {
  const window = text.slice(0, limit);
  for (const pattern of BREAKS) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (end <= limit) best = end;
    }
    // A break in the first half would leave a short part and many more parts: keep looking.
    if (best >= limit / 2) return best;
  }
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

export function splitText(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const end = cutAt(rest, limit);
    const part = rest.slice(0, end).trim();
    if (part) parts.push(part);
    rest = rest.slice(end).trimStart();
  }
  if (rest.trim()) parts.push(rest.trim());
  return parts;
}

/**
 * A unified diff of two texts for approval cards ("what will this edit change?"). Plain LCS over
 * lines; for very large inputs it falls back to a summary rather than spending seconds.
 */
const MAX_CELLS = 2_000_000;

export function unifiedDiff(before: string, after: string, options: { path: string; context?: number }): string {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const header = [`--- ${before === "" ? "/dev/null" : `a/${options.path}`}`, `+++ b/${options.path}`];
  if ((a.length + 1) * (b.length + 1) > MAX_CELLS) {
    return [...header, `@@ large change: ${a.length} lines → ${b.length} lines @@`].join("\n");
  }
  // lcs[i][j] = length of the LCS of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  type TLine = { kind: " " | "-" | "+"; text: string; oldLine: number; newLine: number };
  const lines: TLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: " ", text: a[i]!, oldLine: i++, newLine: j++ });
    } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals before additions, as diff(1) shows them.
      lines.push({ kind: "-", text: a[i]!, oldLine: i++, newLine: j });
    } else {
      lines.push({ kind: "+", text: b[j]!, oldLine: i, newLine: j++ });
    }
  }
  const context = options.context ?? 3;
  const changed = lines.map((line, index) => (line.kind === " " ? -1 : index)).filter((index) => index >= 0);
  if (!changed.length) return [...header, "@@ no changes @@"].join("\n");
  const out = [...header];
  let start = 0;
  while (start < changed.length) {
    let end = start;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! <= context * 2) end++;
    const from = Math.max(0, changed[start]! - context);
    const to = Math.min(lines.length - 1, changed[end]! + context);
    const hunk = lines.slice(from, to + 1);
    const oldCount = hunk.filter((line) => line.kind !== "+").length;
    const newCount = hunk.filter((line) => line.kind !== "-").length;
    out.push(`@@ -${hunk[0]!.oldLine + (oldCount ? 1 : 0)},${oldCount} +${hunk[0]!.newLine + (newCount ? 1 : 0)},${newCount} @@`);
    for (const line of hunk) out.push(line.kind + line.text);
    start = end + 1;
  }
  return out.join("\n");
}

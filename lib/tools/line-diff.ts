import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";

/**
 * A unified diff of two texts for approval cards ("what will this edit change?"), by jsdiff. Its
 * Myers diff costs about (lines × changed lines), so a small edit anywhere in a file of any size is
 * cheap. The search gives up past MAX_CHANGED_LINES (a 20,000-line file rewritten as a whole would
 * hold the event loop for a minute); such a change is shown as the old text removed and the new
 * text added: a correct diff, only not the shortest one.
 */
const MAX_CHANGED_LINES = 1_000;

export function unifiedDiff(before: string, after: string, options: { path: string; context?: number }): string {
  const oldFileName = before === "" ? "/dev/null" : `a/${options.path}`;
  const newFileName = `b/${options.path}`;
  const patch = structuredPatch(oldFileName, newFileName, before, after, undefined, undefined, {
    context: options.context ?? 3,
    maxEditLength: MAX_CHANGED_LINES,
  }) ?? { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: [replacement(before, after)] };
  const text = formatPatch(patch, FILE_HEADERS_ONLY);
  return patch.hunks.length ? text : `${text}@@ no changes @@\n`;
}

/** Every old line removed, then every new line added, in one hunk. */
function replacement(before: string, after: string): StructuredPatchHunk {
  const removed = prefixedLines(before, "-");
  const added = prefixedLines(after, "+");
  // formatPatch writes a side with no lines as starting one line earlier (0), as diff(1) does.
  return { oldStart: 1, oldLines: removed.count, newStart: 1, newLines: added.count, lines: [...removed.lines, ...added.lines] };
}

function prefixedLines(text: string, sign: "-" | "+"): { count: number; lines: string[] } {
  if (text === "") return { count: 0, lines: [] };
  const lines = text.split("\n");
  const endsWithNewline = lines.at(-1) === "";
  if (endsWithNewline) lines.pop();
  const prefixed = lines.map((line) => sign + line);
  return { count: lines.length, lines: endsWithNewline ? prefixed : [...prefixed, "\\ No newline at end of file"] };
}

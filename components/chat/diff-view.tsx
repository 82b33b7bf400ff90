/**
 * A unified diff from an approval preview (lib/tools/line-diff.ts), line by line: additions green,
 * removals red, hunk headers blue, file names and "\ No newline at end of file" muted. Plain text
 * in React elements; nothing is parsed as markup.
 */
function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("\\")) return "text-neutral-500 dark:text-neutral-400";
  if (line.startsWith("+")) return "bg-green-100/80 text-green-900 dark:bg-green-950/60 dark:text-green-200";
  if (line.startsWith("-")) return "bg-red-100/80 text-red-900 dark:bg-red-950/60 dark:text-red-200";
  if (line.startsWith("@@")) return "text-blue-700 dark:text-blue-300";
  return "";
}

export function DiffView({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre
      tabIndex={0}
      aria-label="Changes"
      data-testid="diff-view"
      className="mt-2 max-h-80 overflow-auto rounded-md border border-neutral-200 bg-white py-1.5 font-mono text-xs leading-5 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-neutral-800 dark:bg-neutral-950"
    >
      {lines.map((line, index) => (
        <span key={index} className={`block px-2 whitespace-pre-wrap [overflow-wrap:anywhere] ${lineClass(line)}`}>
          {line || " "}
        </span>
      ))}
    </pre>
  );
}

import type { TChronosExecutionStatus } from "@/lib/wire/chronos";

const STYLES: Record<TChronosExecutionStatus, { label: string; className: string }> = {
  queued: { label: "Queued", className: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300" },
  running: { label: "Running", className: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300" },
  silent: { label: "Silent", className: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300" },
  notified: { label: "Notified", className: "bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300" },
  skipped: { label: "Skipped", className: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300" },
  failed: { label: "Failed", className: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300" },
  timeout: { label: "Timeout", className: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-300" },
};

/** An execution's outcome as a coloured word (the word carries the meaning, not the colour). */
export function ExecutionStatusBadge({ status }: { status: TChronosExecutionStatus }) {
  const style = STYLES[status];
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${style.className}`}>{style.label}</span>;
}

import type { TJobRunStatus } from "@/lib/jobs/admin-runs";

const TONES: Record<TJobRunStatus | "waiting", string> = {
  queued: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
  waiting: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
  running: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300",
  sleeping: "bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300",
  completed: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300",
  failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  cancelled: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-300",
};

const LABELS: Record<TJobRunStatus | "waiting", string> = {
  queued: "Queued",
  waiting: "Waiting",
  running: "Running",
  sleeping: "Sleeping",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A run's or step's status as a coloured word (the word carries the meaning, not the colour). */
export function JobStatusBadge({ status, cancelling = false }: { status: TJobRunStatus | "waiting"; cancelling?: boolean }) {
  return (
    <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[status]}`}>
      {cancelling ? "Cancelling…" : LABELS[status]}
    </span>
  );
}

/** "850 ms", "12.3 s", "4 min 2 s", "2 h 5 min". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

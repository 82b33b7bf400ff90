import { Badge, StatusBadge, type TBadgeTone } from "@/components/ui/badge";
import type { TJobRunStatus } from "@/lib/jobs/admin-runs";

const STYLES: Record<TJobRunStatus | "waiting", { label: string; tone: TBadgeTone }> = {
  queued: { label: "Queued", tone: "neutral" },
  waiting: { label: "Waiting", tone: "neutral" },
  running: { label: "Running", tone: "blue" },
  sleeping: { label: "Sleeping", tone: "violet" },
  completed: { label: "Completed", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  cancelled: { label: "Cancelled", tone: "amber" },
};

/** A run's or step's status as a coloured word; a run asked to stop says so while it still runs. */
export function JobStatusBadge({ status, cancelling = false }: { status: TJobRunStatus | "waiting"; cancelling?: boolean }) {
  return cancelling ? <Badge tone={STYLES[status].tone}>Cancelling…</Badge> : <StatusBadge status={status} styles={STYLES} />;
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

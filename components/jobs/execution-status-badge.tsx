import { StatusBadge, type TBadgeTone } from "@/components/ui/badge";
import type { TChronosExecutionStatus } from "@/lib/wire/chronos";

const STYLES: Record<TChronosExecutionStatus, { label: string; tone: TBadgeTone }> = {
  queued: { label: "Queued", tone: "neutral" },
  running: { label: "Running", tone: "blue" },
  silent: { label: "Silent", tone: "green" },
  notified: { label: "Notified", tone: "violet" },
  skipped: { label: "Skipped", tone: "neutral" },
  failed: { label: "Failed", tone: "red" },
  timeout: { label: "Timeout", tone: "amber" },
};

/** An execution's outcome as a coloured word (the word carries the meaning, not the colour). */
export function ExecutionStatusBadge({ status }: { status: TChronosExecutionStatus }) {
  return <StatusBadge status={status} styles={STYLES} />;
}

"use client";

import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { NOTIFICATIONS_REFRESH } from "@/components/app-shell/notifications-store";
import { formatDuration } from "@/components/admin/jobs-status-badge";
import { Alert } from "@/components/ui/alert";
import { DateTime } from "@/components/ui/date-time";
import type { TChronosExecutionView } from "@/lib/wire/chronos";
import { ExecutionStatusBadge } from "./execution-status-badge";

/**
 * A job's history, newest first: outcome, what started it, when, and a link to each run's trace.
 * While a run is queued or running it refreshes every few seconds; when one ends it tells the
 * bell to look (the run may have notified) and the page to update the job's last status.
 */
const LIVE_REFRESH_MS = 3_000;
const TRIGGERS: Record<TChronosExecutionView["trigger"], string> = { schedule: "on schedule", "catch-up": "caught up after downtime", manual: "run now", webhook: "alert" };

export function JobHistory({ jobId, jobName, version, onSettled }: { jobId: string; jobName: string; version: number; onSettled: () => void }) {
  const [runs, setRuns] = useState<TChronosExecutionView[]>();
  const [error, setError] = useState<string>();
  const live = useRef(new Set<string>());
  // The parent's callback changes with every render of the parent; loading must not.
  const settled = useRef(onSettled);
  useEffect(() => {
    settled.current = onSettled;
  }, [onSettled]);

  const seenFinished = useRef<Set<string> | undefined>(undefined);
  const apply = useCallback((result: { runs: TChronosExecutionView[] }) => {
    setRuns(result.runs);
    setError(undefined);
    const finished = result.runs.filter((run) => run.status !== "queued" && run.status !== "running");
    // Runs that ended since the history was opened (a "run now" can end before the first look).
    const recent = Date.now() - 5 * 60_000;
    const fresh = finished.filter((run) => !seenFinished.current?.has(run.id) && (live.current.has(run.id) || (run.endedAt !== null && new Date(run.endedAt).getTime() > recent)));
    seenFinished.current = new Set(finished.map((run) => run.id));
    live.current = new Set(result.runs.filter((run) => run.status === "queued" || run.status === "running").map((run) => run.id));
    if (fresh.length) {
      window.dispatchEvent(new Event(NOTIFICATIONS_REFRESH));
      settled.current();
    }
  }, []);

  const load = useCallback(
    () =>
      apiRequest<{ runs: TChronosExecutionView[] }>(`/api/jobs/${encodeURIComponent(jobId)}/runs?limit=30`).then(apply, (caught: unknown) => setError(errorMessage(caught))),
    [jobId, apply],
  );

  useEffect(() => {
    let current = true;
    apiRequest<{ runs: TChronosExecutionView[] }>(`/api/jobs/${encodeURIComponent(jobId)}/runs?limit=30`).then(
      (result) => {
        if (current) apply(result);
      },
      (caught: unknown) => {
        if (current) setError(errorMessage(caught));
      },
    );
    return () => {
      current = false;
    };
  }, [jobId, apply, version]);

  const anyLive = runs?.some((run) => run.status === "queued" || run.status === "running") ?? false;
  useEffect(() => {
    if (!anyLive) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void load();
    }, LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [anyLive, load]);

  if (error) return <Alert tone="error">{error}</Alert>;
  if (!runs) return <p className="text-sm text-neutral-500 dark:text-neutral-400">Loading the history…</p>;
  if (!runs.length) return <p className="text-sm text-neutral-500 dark:text-neutral-400">No runs yet.</p>;
  return (
    <ul aria-label={`History of ${jobName}`} className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
      {runs.map((run) => {
        const started = run.startedAt ?? run.createdAt;
        const duration = run.endedAt && run.startedAt ? new Date(run.endedAt).getTime() - new Date(run.startedAt).getTime() : null;
        return (
          <li key={run.id} data-testid="job-run" className="flex flex-col gap-1.5 px-3 py-2.5 text-sm sm:flex-row sm:items-start sm:justify-between sm:gap-4">
            <div className="min-w-0">
              <div className="flex flex-wrap items-center gap-2">
                <ExecutionStatusBadge status={run.status} />
                <span className="text-neutral-700 dark:text-neutral-300">
                  <DateTime iso={run.scheduledFor ?? started} />
                </span>
                <span className="text-xs text-neutral-500 dark:text-neutral-400">
                  {TRIGGERS[run.trigger]}
                  {duration !== null ? ` · took ${formatDuration(duration)}` : ""}
                  {run.notifications ? ` · ${run.notifications} notification${run.notifications === 1 ? "" : "s"}` : ""}
                </span>
              </div>
              {run.statusReason ? (
                <p className="mt-1 line-clamp-2 text-xs break-words text-neutral-600 dark:text-neutral-400" title={run.statusReason}>
                  {run.statusReason}
                </p>
              ) : null}
            </div>
            {run.sessionId ? (
              <Link
                href={`/chat/${run.sessionId}`}
                className="shrink-0 text-sm font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-400"
              >
                Open trace<span className="sr-only"> of the run {run.scheduledFor ? "scheduled" : "started"} at {new Date(run.scheduledFor ?? started).toLocaleString()}</span>
              </Link>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

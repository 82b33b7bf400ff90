"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TJobDefinitionView, TJobRunSummary } from "@/lib/jobs/admin-runs";

/** Tells the runs table on the same page to reload (the two are separate islands). */
export const JOB_RUNS_CHANGED = "xclaw:job-runs-changed";

/** The catalog: every job, what starts it, and "Run now" for cron jobs. */
export function JobsCatalog({ jobs, canRunNow }: { jobs: TJobDefinitionView[]; canRunNow: boolean }) {
  const [pendingId, setPendingId] = useState<string>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  async function runNow(job: TJobDefinitionView) {
    setPendingId(job.id);
    setError(undefined);
    setNotice(undefined);
    try {
      await apiRequest<{ run: TJobRunSummary }>("/api/admin/jobs/runs", { method: "POST", body: { jobId: job.id } });
      setNotice(`${job.id} is queued; it shows up under Runs.`);
      window.dispatchEvent(new Event(JOB_RUNS_CHANGED));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPendingId(undefined);
    }
  }

  return (
    <div className="space-y-3">
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      <ul className="divide-y divide-neutral-200 text-sm dark:divide-neutral-800">
        {jobs.map((job) => (
          <li key={job.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4">
            <div className="min-w-0">
              <div className="font-medium text-neutral-900 dark:text-neutral-100">{job.id}</div>
              <div className="text-neutral-600 dark:text-neutral-400">
                {job.trigger} · {job.retries} {job.retries === 1 ? "retry" : "retries"}
                {job.concurrency ? ` · at most ${job.concurrency} at once` : ""}
                {job.singleton ? ` · singleton (${job.singleton})` : ""}
              </div>
              {job.nextRunAt ? (
                <div className="text-xs text-neutral-500 dark:text-neutral-400">
                  Next: <DateTime iso={job.nextRunAt} />
                </div>
              ) : null}
            </div>
            {canRunNow && job.nextRunAt ? (
              <Button variant="secondary" size="sm" disabled={pendingId === job.id} aria-label={`Run ${job.id} now`} onClick={() => void runNow(job)}>
                Run now
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

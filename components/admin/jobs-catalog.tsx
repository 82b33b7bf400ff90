"use client";

import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TJobDefinitionView, TJobRunSummary } from "@/lib/jobs/admin-runs";

/** Tells the runs table on the same page to reload (the two are separate islands). */
export const JOB_RUNS_CHANGED = "xclaw:job-runs-changed";

/** The catalog: every job, what starts it, and "Run now" for cron jobs. */
export function JobsCatalog({ jobs, canRunNow }: { jobs: TJobDefinitionView[]; canRunNow: boolean }) {
  const { pending, feedback, run } = useAction();

  const runNow = (job: TJobDefinitionView) =>
    run(job.id, async () => {
      await apiRequest<{ run: TJobRunSummary }>("/api/admin/jobs/runs", { method: "POST", body: { jobId: job.id } });
      window.dispatchEvent(new Event(JOB_RUNS_CHANGED));
      return `${job.id} is queued; it shows up under Runs.`;
    });

  return (
    <div className="space-y-3">
      <FeedbackAlert feedback={feedback} />
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
              <Button variant="secondary" size="sm" disabled={pending === job.id} aria-label={`Run ${job.id} now`} onClick={() => void runNow(job)}>
                Run now
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

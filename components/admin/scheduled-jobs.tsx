"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { ExecutionStatusBadge } from "@/components/jobs/execution-status-badge";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TAdminChronosJobView } from "@/lib/wire/chronos";

/**
 * Admin → Jobs, "Scheduled jobs": every user's scheduled jobs. An administrator pauses any of
 * them (the owner cannot resume it) and has one switch that pauses every schedule at once; "run
 * now" and alert triage keep working while it is on.
 */
export function ScheduledJobsAdmin({ initialJobs, initialPaused }: { initialJobs: TAdminChronosJobView[]; initialPaused: boolean }) {
  const [jobs, setJobs] = useState(initialJobs);
  const [paused, setPaused] = useState(initialPaused);
  const [pendingId, setPendingId] = useState<string>();
  const [switching, setSwitching] = useState(false);
  const [error, setError] = useState<string>();

  async function toggleAll() {
    setSwitching(true);
    setError(undefined);
    try {
      const result = await apiRequest<{ paused: boolean }>("/api/admin/scheduled-jobs/pause-all", { method: "POST", body: { paused: !paused } });
      setPaused(result.paused);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setSwitching(false);
    }
  }

  async function setJobPaused(job: TAdminChronosJobView, value: boolean) {
    setPendingId(job.id);
    setError(undefined);
    try {
      const result = await apiRequest<{ job: TAdminChronosJobView }>(`/api/admin/scheduled-jobs/${encodeURIComponent(job.id)}`, { method: "PATCH", body: { paused: value } });
      setJobs((rows) => rows.map((row) => (row.id === job.id ? result.job : row)));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPendingId(undefined);
    }
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-3 rounded-lg border border-neutral-200 p-3 sm:flex-row sm:items-center sm:justify-between dark:border-neutral-800">
        <div>
          <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">{paused ? "All schedules are paused" : "Schedules are running"}</p>
          <p className="text-xs text-neutral-600 dark:text-neutral-400">
            {paused ? "No scheduled run starts; slots that pass are not made up later." : "Pausing stops every user's schedules at once (run now and alert triage still work)."}
          </p>
        </div>
        <Button variant={paused ? "primary" : "danger"} pending={switching} aria-pressed={paused} onClick={() => void toggleAll()}>
          {paused ? "Resume all schedules" : "Pause all schedules"}
        </Button>
      </div>
      {error ? <Alert tone="error">{error}</Alert> : null}
      {jobs.length === 0 ? (
        <p className="rounded-lg border border-dashed border-neutral-300 px-4 py-6 text-center text-sm text-neutral-600 dark:border-neutral-700 dark:text-neutral-400">Nobody has a scheduled job yet.</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Every user&apos;s scheduled jobs</caption>
            <thead className="bg-neutral-50 text-xs font-medium text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
              <tr>
                <th scope="col" className="px-3 py-2.5 sm:px-4">Job</th>
                <th scope="col" className="hidden px-4 py-2.5 md:table-cell">Owner</th>
                <th scope="col" className="hidden px-4 py-2.5 sm:table-cell">Next run</th>
                <th scope="col" className="hidden px-4 py-2.5 lg:table-cell">Last</th>
                <th scope="col" className="px-3 py-2.5 text-right sm:px-4">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
              {jobs.map((job) => (
                <tr key={job.id}>
                  <td className="max-w-[18rem] px-3 py-3 align-top sm:px-4">
                    <div className="truncate font-medium text-neutral-900 dark:text-neutral-100">{job.name}</div>
                    <div className="truncate text-xs text-neutral-500 dark:text-neutral-400">{job.scheduleText}</div>
                    <div className="truncate text-xs text-neutral-500 md:hidden dark:text-neutral-400">{job.ownerEmail}</div>
                  </td>
                  <td className="hidden max-w-[14rem] truncate px-4 py-3 align-top text-neutral-600 md:table-cell dark:text-neutral-400">{job.ownerEmail}</td>
                  <td className="hidden px-4 py-3 align-top whitespace-nowrap text-neutral-600 sm:table-cell dark:text-neutral-400">
                    {job.pausedByAdmin ? "Paused by an admin" : !job.enabled ? "Paused by the owner" : <DateTime iso={job.nextRunAt} fallback="—" />}
                  </td>
                  <td className="hidden px-4 py-3 align-top lg:table-cell">{job.lastStatus ? <ExecutionStatusBadge status={job.lastStatus} /> : <span className="text-neutral-500">never ran</span>}</td>
                  <td className="px-3 py-3 text-right align-top sm:px-4">
                    <Button
                      size="sm"
                      variant={job.pausedByAdmin ? "secondary" : "danger"}
                      disabled={pendingId === job.id}
                      aria-label={`${job.pausedByAdmin ? "Resume" : "Pause"} ${job.name} of ${job.ownerEmail}`}
                      onClick={() => void setJobPaused(job, !job.pausedByAdmin)}
                    >
                      {job.pausedByAdmin ? "Resume" : "Pause"}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

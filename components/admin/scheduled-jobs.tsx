"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { ExecutionStatusBadge } from "@/components/jobs/execution-status-badge";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TAdminChronosJobView } from "@/lib/wire/chronos";
import { AdminTable, Cell, EmptyTable } from "./admin-table";

/**
 * Admin → Jobs, "Scheduled jobs": every user's scheduled jobs. An administrator pauses any of
 * them (the owner cannot resume it) and has one switch that pauses every schedule at once; "run
 * now" and alert triage keep working while it is on.
 */
const ALL = "all";

export function ScheduledJobsAdmin({ initialJobs, initialPaused }: { initialJobs: TAdminChronosJobView[]; initialPaused: boolean }) {
  const [jobs, setJobs] = useState(initialJobs);
  const [paused, setPaused] = useState(initialPaused);
  const { pending, feedback, run } = useAction();

  const toggleAll = () =>
    run(ALL, async () => {
      const result = await apiRequest<{ paused: boolean }>("/api/admin/scheduled-jobs/pause-all", { method: "POST", body: { paused: !paused } });
      setPaused(result.paused);
    });

  const setJobPaused = (job: TAdminChronosJobView, value: boolean) =>
    run(job.id, async () => {
      const result = await apiRequest<{ job: TAdminChronosJobView }>(`/api/admin/scheduled-jobs/${encodeURIComponent(job.id)}`, { method: "PATCH", body: { paused: value } });
      setJobs((rows) => rows.map((row) => (row.id === job.id ? result.job : row)));
    });

  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-3 rounded-lg border border-neutral-200 p-3 sm:flex-row sm:items-center sm:justify-between dark:border-neutral-800">
        <div>
          <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">{paused ? "All schedules are paused" : "Schedules are running"}</p>
          <p className="text-xs text-neutral-600 dark:text-neutral-400">
            {paused ? "No scheduled run starts; slots that pass are not made up later." : "Pausing stops every user's schedules at once (run now and alert triage still work)."}
          </p>
        </div>
        <Button variant={paused ? "primary" : "danger"} pending={pending === ALL} aria-pressed={paused} onClick={() => void toggleAll()}>
          {paused ? "Resume all schedules" : "Pause all schedules"}
        </Button>
      </div>
      <FeedbackAlert feedback={feedback} />
      {jobs.length === 0 ? (
        <EmptyTable>Nobody has a scheduled job yet.</EmptyTable>
      ) : (
        <AdminTable caption="Every user's scheduled jobs" alignTop columns={[{ label: "Job" }, { label: "Owner", from: "md" }, { label: "Next run", from: "sm" }, { label: "Last", from: "lg" }]}>
          {jobs.map((job) => (
            <tr key={job.id}>
              <Cell className="max-w-[18rem]">
                <div className="truncate font-medium text-neutral-900 dark:text-neutral-100">{job.name}</div>
                <div className="truncate text-xs text-neutral-500 dark:text-neutral-400">{job.scheduleText}</div>
                <div className="truncate text-xs text-neutral-500 md:hidden dark:text-neutral-400">{job.ownerEmail}</div>
              </Cell>
              <Cell from="md" className="max-w-[14rem] truncate">
                {job.ownerEmail}
              </Cell>
              <Cell from="sm" className="whitespace-nowrap">
                {job.pausedByAdmin ? "Paused by an admin" : !job.enabled ? "Paused by the owner" : <DateTime iso={job.nextRunAt} fallback="—" />}
              </Cell>
              <Cell from="lg">{job.lastStatus ? <ExecutionStatusBadge status={job.lastStatus} /> : <span className="text-neutral-500">never ran</span>}</Cell>
              <Cell className="text-right">
                <Button
                  size="sm"
                  variant={job.pausedByAdmin ? "secondary" : "danger"}
                  disabled={pending === job.id}
                  aria-label={`${job.pausedByAdmin ? "Resume" : "Pause"} ${job.name} of ${job.ownerEmail}`}
                  onClick={() => void setJobPaused(job, !job.pausedByAdmin)}
                >
                  {job.pausedByAdmin ? "Resume" : "Pause"}
                </Button>
              </Cell>
            </tr>
          ))}
        </AdminTable>
      )}
    </div>
  );
}

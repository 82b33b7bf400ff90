"use client";

import { Fragment, useCallback, useEffect, useId, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TJobRunStatus, TJobRunSummary } from "@/lib/jobs/admin-runs";
import { ActionsCell, AdminTable, Cell, EmptyTable } from "./admin-table";
import { JOB_RUNS_CHANGED } from "./jobs-catalog";
import { JobRunDetails } from "./jobs-run-details";
import { formatDuration, JobStatusBadge } from "./jobs-status-badge";

const FILTERS: { value: TJobRunStatus | ""; label: string }[] = [
  { value: "", label: "All runs" },
  { value: "running", label: "Running" },
  { value: "queued", label: "Queued" },
  { value: "sleeping", label: "Sleeping" },
  { value: "failed", label: "Failed" },
  { value: "cancelled", label: "Cancelled" },
  { value: "completed", label: "Completed" },
];

const REFRESH_MS = 5_000;

/**
 * Recent job runs, newest first, refreshed every few seconds while the tab is visible. A row opens
 * its details (event, result, steps). Failed and cancelled runs can be retried; waiting and
 * running ones cancelled.
 */
export function JobRunsTable({ initialRuns }: { initialRuns: TJobRunSummary[] }) {
  const [runs, setRuns] = useState(initialRuns);
  const [status, setStatus] = useState<TJobRunStatus | "">("");
  const [openId, setOpenId] = useState<string>();
  const [version, setVersion] = useState(0);
  const { pending, feedback, fail, run: act } = useAction();
  const filterId = useId();

  const load = useCallback(
    async (filter: TJobRunStatus | "") => {
      try {
        const result = await apiRequest<{ runs: TJobRunSummary[] }>(`/api/admin/jobs/runs${filter ? `?status=${filter}` : ""}`);
        setRuns(result.runs);
        setVersion((value) => value + 1);
      } catch (caught) {
        fail(caught);
      }
    },
    [fail],
  );

  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void load(status);
    }, REFRESH_MS);
    const reload = () => void load(status);
    window.addEventListener(JOB_RUNS_CHANGED, reload);
    return () => {
      clearInterval(timer);
      window.removeEventListener(JOB_RUNS_CHANGED, reload);
    };
  }, [load, status]);

  const control = (run: TJobRunSummary, action: "retry" | "cancel") =>
    act(run.id, async () => {
      const result = await apiRequest<{ run: TJobRunSummary }>(`/api/admin/jobs/runs/${encodeURIComponent(run.id)}/${action}`, { method: "POST" });
      setRuns((rows) => rows.map((row) => (row.id === run.id ? { ...row, ...result.run } : row)));
      setVersion((value) => value + 1);
      if (action === "retry") return `${run.jobId} is queued again; it resumes after its last completed step.`;
      return result.run.status === "cancelled" ? `${run.jobId} was cancelled.` : `${run.jobId} is being cancelled; its handler has been told to stop.`;
    });

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={filterId} className="text-xs font-medium text-neutral-600 dark:text-neutral-400">
            Show
          </label>
          <select
            id={filterId}
            value={status}
            onChange={(event) => {
              const next = event.target.value as TJobRunStatus | "";
              setStatus(next);
              setOpenId(undefined);
              void load(next);
            }}
            className="h-9 rounded-lg border border-neutral-300 bg-white px-2 text-sm text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
          >
            {FILTERS.map((filter) => (
              <option key={filter.value} value={filter.value}>
                {filter.label}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" size="sm" onClick={() => void load(status)}>
          Refresh
        </Button>
      </div>
      <FeedbackAlert feedback={feedback} />
      {runs.length === 0 ? (
        <EmptyTable>{status ? "No runs with this status." : "No job has run yet."}</EmptyTable>
      ) : (
        <AdminTable
          caption="Job runs, newest first"
          alignTop
          columns={[{ label: "Job" }, { label: "Status", from: "sm" }, { label: "Trigger", from: "lg" }, { label: "Attempts", from: "md" }, { label: "Started", from: "md" }]}
        >
          {runs.map((run) => {
            const open = openId === run.id;
            const busy = pending === run.id;
            const badge = <JobStatusBadge status={run.status} cancelling={run.cancelRequested && run.status === "running"} />;
            return (
              <Fragment key={run.id}>
                <tr className={open ? "bg-neutral-50/70 dark:bg-neutral-900/50" : undefined}>
                  <Cell className="max-w-[16rem]">
                    <div className="truncate font-medium text-neutral-900 dark:text-neutral-100">{run.jobId}</div>
                    {run.error ? (
                      <div className="mt-0.5 line-clamp-2 text-xs break-words text-red-700 dark:text-red-300" title={run.error}>
                        {run.error}
                      </div>
                    ) : null}
                    {/* Small screens have no room for the other columns; the essentials go here. */}
                    <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-neutral-500 sm:hidden dark:text-neutral-400">
                      {badge}
                      <span>{run.trigger}</span>
                      <span>· {formatDuration(run.durationMs)}</span>
                    </div>
                  </Cell>
                  <Cell from="sm">{badge}</Cell>
                  <Cell from="lg" className="max-w-[12rem] truncate" title={run.trigger}>
                    {run.trigger}
                  </Cell>
                  <Cell from="md" className="whitespace-nowrap">
                    {run.attempt + 1} of {run.maxAttempts}
                  </Cell>
                  <Cell from="md" className="whitespace-nowrap">
                    <DateTime iso={run.startedAt} fallback="Not yet" />
                    {run.durationMs !== null ? <div className="text-xs">took {formatDuration(run.durationMs)}</div> : null}
                  </Cell>
                  <ActionsCell>
                    <Button
                      variant="ghost"
                      size="sm"
                      aria-expanded={open}
                      aria-controls={`run-${run.id}`}
                      aria-label={`${open ? "Hide" : "Show"} details of ${run.jobId} run`}
                      onClick={() => setOpenId(open ? undefined : run.id)}
                    >
                      {open ? "Hide" : "Details"}
                    </Button>
                    {run.status === "failed" || run.status === "cancelled" ? (
                      <Button variant="secondary" size="sm" disabled={busy} aria-label={`Retry ${run.jobId} run`} onClick={() => void control(run, "retry")}>
                        Retry
                      </Button>
                    ) : null}
                    {(run.status === "running" || run.status === "queued" || run.status === "sleeping") && !run.cancelRequested ? (
                      <Button variant="danger" size="sm" disabled={busy} aria-label={`Cancel ${run.jobId} run`} onClick={() => void control(run, "cancel")}>
                        Cancel
                      </Button>
                    ) : null}
                  </ActionsCell>
                </tr>
                {open ? (
                  <tr id={`run-${run.id}`}>
                    <td colSpan={6} className="bg-neutral-50/70 px-3 pb-4 sm:px-4 dark:bg-neutral-900/50">
                      {/* Zero width, full minimum: long details wrap instead of widening the table. */}
                      <div className="w-0 min-w-full">
                        <JobRunDetails runId={run.id} version={version} />
                      </div>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </AdminTable>
      )}
    </div>
  );
}

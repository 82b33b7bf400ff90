"use client";

import { Fragment, useCallback, useEffect, useId, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TJobRunStatus, TJobRunSummary } from "@/lib/jobs/admin-runs";
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
  const [pendingId, setPendingId] = useState<string>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const filterId = useId();

  const load = useCallback(async (filter: TJobRunStatus | "") => {
    try {
      const result = await apiRequest<{ runs: TJobRunSummary[] }>(`/api/admin/jobs/runs${filter ? `?status=${filter}` : ""}`);
      setRuns(result.runs);
      setVersion((value) => value + 1);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }, []);

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

  async function act(run: TJobRunSummary, action: "retry" | "cancel") {
    setPendingId(run.id);
    setError(undefined);
    setNotice(undefined);
    try {
      const result = await apiRequest<{ run: TJobRunSummary }>(`/api/admin/jobs/runs/${encodeURIComponent(run.id)}/${action}`, { method: "POST" });
      setRuns((rows) => rows.map((row) => (row.id === run.id ? { ...row, ...result.run } : row)));
      setVersion((value) => value + 1);
      setNotice(
        action === "retry"
          ? `${run.jobId} is queued again; it resumes after its last completed step.`
          : result.run.status === "cancelled"
            ? `${run.jobId} was cancelled.`
            : `${run.jobId} is being cancelled; its handler has been told to stop.`,
      );
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPendingId(undefined);
    }
  }

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
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      {runs.length === 0 ? (
        <p className="rounded-lg border border-dashed border-neutral-300 px-4 py-6 text-center text-sm text-neutral-600 dark:border-neutral-700 dark:text-neutral-400">
          {status ? "No runs with this status." : "No job has run yet."}
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Job runs, newest first</caption>
            <thead className="bg-neutral-50 text-xs font-medium text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
              <tr>
                <th scope="col" className="px-3 py-2.5 sm:px-4">Job</th>
                <th scope="col" className="hidden px-4 py-2.5 sm:table-cell">Status</th>
                <th scope="col" className="hidden px-4 py-2.5 lg:table-cell">Trigger</th>
                <th scope="col" className="hidden px-4 py-2.5 md:table-cell">Attempts</th>
                <th scope="col" className="hidden px-4 py-2.5 md:table-cell">Started</th>
                <th scope="col" className="px-3 py-2.5 text-right sm:px-4">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
              {runs.map((run) => {
                const open = openId === run.id;
                const busy = pendingId === run.id;
                const badge = <JobStatusBadge status={run.status} cancelling={run.cancelRequested && run.status === "running"} />;
                return (
                  <Fragment key={run.id}>
                    <tr className={open ? "bg-neutral-50/70 dark:bg-neutral-900/50" : undefined}>
                      <td className="max-w-[16rem] px-3 py-3 align-top sm:px-4">
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
                      </td>
                      <td className="hidden px-4 py-3 align-top sm:table-cell">{badge}</td>
                      <td className="hidden max-w-[12rem] truncate px-4 py-3 align-top text-neutral-600 lg:table-cell dark:text-neutral-400" title={run.trigger}>
                        {run.trigger}
                      </td>
                      <td className="hidden px-4 py-3 align-top whitespace-nowrap text-neutral-600 md:table-cell dark:text-neutral-400">
                        {run.attempt + 1} of {run.maxAttempts}
                      </td>
                      <td className="hidden px-4 py-3 align-top whitespace-nowrap text-neutral-600 md:table-cell dark:text-neutral-400">
                        <DateTime iso={run.startedAt} fallback="Not yet" />
                        {run.durationMs !== null ? <div className="text-xs">took {formatDuration(run.durationMs)}</div> : null}
                      </td>
                      <td className="px-3 py-3 align-top sm:px-4">
                        <div className="flex flex-col items-stretch justify-end gap-2 sm:flex-row sm:items-center">
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
                            <Button variant="secondary" size="sm" disabled={busy} aria-label={`Retry ${run.jobId} run`} onClick={() => void act(run, "retry")}>
                              Retry
                            </Button>
                          ) : null}
                          {(run.status === "running" || run.status === "queued" || run.status === "sleeping") && !run.cancelRequested ? (
                            <Button variant="danger" size="sm" disabled={busy} aria-label={`Cancel ${run.jobId} run`} onClick={() => void act(run, "cancel")}>
                              Cancel
                            </Button>
                          ) : null}
                        </div>
                      </td>
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
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

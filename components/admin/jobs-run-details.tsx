"use client";

import { useEffect, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { DateTime } from "@/components/ui/date-time";
import type { TJobRunDetail } from "@/lib/jobs/admin-runs";
import { formatDuration, JobStatusBadge } from "./jobs-status-badge";

function Json({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return (
    <pre className="max-h-48 overflow-auto rounded-md bg-neutral-100 p-2 text-xs break-all whitespace-pre-wrap text-neutral-800 dark:bg-neutral-950 dark:text-neutral-200">
      {text.length > 4_000 ? `${text.slice(0, 4_000)}\n…` : text}
    </pre>
  );
}

/** A run's event, result and steps; loaded when opened, again when `version` changes. */
export function JobRunDetails({ runId, version }: { runId: string; version: number }) {
  const [run, setRun] = useState<TJobRunDetail>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    apiRequest<{ run: TJobRunDetail }>(`/api/admin/jobs/runs/${encodeURIComponent(runId)}`).then(
      (result) => {
        if (!live) return;
        setRun(result.run);
        setError(undefined);
      },
      (caught: unknown) => {
        if (live) setError(errorMessage(caught));
      },
    );
    return () => {
      live = false;
    };
  }, [runId, version]);

  if (error) return <Alert tone="error">{error}</Alert>;
  if (!run) return <p className="text-sm text-neutral-500 dark:text-neutral-400">Loading…</p>;
  return (
    <div className="space-y-4 text-sm">
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-2">
        <div className="min-w-0">
          <dt className="text-xs font-medium text-neutral-500 dark:text-neutral-400">Event</dt>
          <dd className="truncate text-neutral-900 dark:text-neutral-100" title={run.eventId}>
            {run.eventName} <span className="text-neutral-500 dark:text-neutral-400">· {run.eventId}</span>
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-neutral-500 dark:text-neutral-400">Queued</dt>
          <dd className="text-neutral-900 dark:text-neutral-100">
            <DateTime iso={run.createdAt} />
          </dd>
        </div>
        <div className="min-w-0 sm:col-span-2">
          <dt className="text-xs font-medium text-neutral-500 dark:text-neutral-400">Data</dt>
          <dd>
            <Json value={run.data} />
          </dd>
        </div>
        {run.output !== null ? (
          <div className="min-w-0 sm:col-span-2">
            <dt className="text-xs font-medium text-neutral-500 dark:text-neutral-400">Result</dt>
            <dd>
              <Json value={run.output} />
            </dd>
          </div>
        ) : null}
        {run.error ? (
          <div className="min-w-0 sm:col-span-2">
            <dt className="text-xs font-medium text-neutral-500 dark:text-neutral-400">{run.status === "failed" || run.status === "cancelled" ? "Reason" : "Last error"}</dt>
            <dd className="break-words text-red-700 dark:text-red-300">{run.error}</dd>
          </div>
        ) : null}
      </dl>
      <div>
        <h3 className="mb-2 text-xs font-medium text-neutral-500 dark:text-neutral-400">Steps</h3>
        {run.steps.length === 0 ? (
          <p className="text-neutral-500 dark:text-neutral-400">No step has finished yet.</p>
        ) : (
          <ol className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
            {run.steps.map((step) => (
              <li key={step.stepId} className="space-y-1.5 px-3 py-2">
                <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                  <span className="font-mono text-xs break-all text-neutral-900 dark:text-neutral-100">{step.stepId}</span>
                  <span className="text-xs text-neutral-500 dark:text-neutral-400">{step.kind}</span>
                  <JobStatusBadge status={step.status} />
                  <span className="text-xs text-neutral-500 dark:text-neutral-400">{formatDuration(step.durationMs)}</span>
                  {step.wakeAt && (step.status === "sleeping" || step.status === "waiting") ? (
                    <span className="text-xs text-neutral-500 dark:text-neutral-400">
                      until <DateTime iso={step.wakeAt} />
                    </span>
                  ) : null}
                </div>
                {step.error ? <p className="break-words text-red-700 dark:text-red-300">{step.error}</p> : null}
                {step.status === "completed" && step.output !== null ? <Json value={step.output} /> : null}
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}

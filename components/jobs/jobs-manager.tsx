"use client";

import Link from "next/link";
import { useCallback, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import type { TChronosJobView, TChronosToolChoice, TNotificationChannelView } from "@/lib/wire/chronos";
import { ExecutionStatusBadge } from "./execution-status-badge";
import { JobForm, type TJobLimits } from "./job-form";
import { JobHistory } from "./job-history";

/**
 * The /jobs page: the user's scheduled jobs with their next run and last outcome; create, edit,
 * run now, pause/resume, delete; and each job's history with links to the traces.
 */
export function JobsManager({
  initialJobs,
  tools,
  channels,
  limits,
  maxJobs,
  providerConfigured,
}: {
  initialJobs: TChronosJobView[];
  tools: TChronosToolChoice[];
  channels: TNotificationChannelView[];
  limits: TJobLimits;
  maxJobs: number;
  providerConfigured: boolean;
}) {
  const [jobs, setJobs] = useState(initialJobs);
  const [editing, setEditing] = useState<TChronosJobView | "new">();
  const [historyOpen, setHistoryOpen] = useState<ReadonlySet<string>>(new Set());
  const [historyVersion, setHistoryVersion] = useState<Record<string, number>>({});
  const { pending: pendingId, error, run } = useAction();
  const deletion = useConfirmation<TChronosJobView>();
  const [notice, setNotice] = useState<{ text: string; sessionId?: string; jobId?: string }>();

  const replace = (job: TChronosJobView) => setJobs((rows) => (rows.some((row) => row.id === job.id) ? rows.map((row) => (row.id === job.id ? job : row)) : [...rows, job]));

  const reloadJob = useCallback(async (jobId: string) => {
    try {
      const { job } = await apiRequest<{ job: TChronosJobView }>(`/api/jobs/${encodeURIComponent(jobId)}`);
      setJobs((rows) => rows.map((row) => (row.id === job.id ? job : row)));
      // "… is running" becomes "… finished" once the run it announced has ended.
      if (!job.running) setNotice((current) => (current?.jobId === job.id ? { ...current, text: `"${job.name}" finished${job.lastStatus ? `: ${job.lastStatus}` : ""}.`, jobId: undefined } : current));
    } catch {
      // The list keeps what it showed; the next action reloads it.
    }
  }, []);

  function showHistory(jobId: string) {
    setHistoryOpen((open) => new Set(open).add(jobId));
    setHistoryVersion((versions) => ({ ...versions, [jobId]: (versions[jobId] ?? 0) + 1 }));
  }

  // The notice may link to the run's trace, so it is kept here rather than as the action's message.
  const runNow = (job: TChronosJobView) =>
    run(job.id, async () => {
      setNotice(undefined);
      const started = await apiRequest<{ executionId: string; sessionId: string }>(`/api/jobs/${encodeURIComponent(job.id)}/run`, { method: "POST" });
      setNotice({ text: `"${job.name}" is running.`, sessionId: started.sessionId, jobId: job.id });
      replace({ ...job, running: true });
      showHistory(job.id);
    });

  const setEnabled = (job: TChronosJobView, enabled: boolean) =>
    run(job.id, async () => {
      setNotice(undefined);
      const { job: updated } = await apiRequest<{ job: TChronosJobView }>(`/api/jobs/${encodeURIComponent(job.id)}`, { method: "PATCH", body: { enabled } });
      replace(updated);
      setNotice({ text: enabled ? `"${job.name}" will run on schedule again.` : `"${job.name}" is paused.` });
    });

  const confirmDelete = deletion.confirm(async (job) => {
    await apiRequest(`/api/jobs/${encodeURIComponent(job.id)}`, { method: "DELETE" });
    setJobs((rows) => rows.filter((row) => row.id !== job.id));
    setNotice({ text: `"${job.name}" was deleted.` });
  });

  if (editing) {
    return (
      <section aria-labelledby="job-form-heading" className="rounded-xl border border-neutral-200 bg-white p-4 shadow-xs sm:p-6 dark:border-neutral-800 dark:bg-neutral-900/60">
        <h2 id="job-form-heading" className="mb-4 text-base font-semibold text-neutral-900 dark:text-neutral-100">
          {editing === "new" ? "New scheduled job" : `Edit "${editing.name}"`}
        </h2>
        <JobForm
          job={editing === "new" ? undefined : editing}
          tools={tools}
          channels={channels}
          limits={limits}
          onCancel={() => setEditing(undefined)}
          onSaved={(job) => {
            replace(job);
            setNotice({ text: editing === "new" ? `"${job.name}" was created.` : `"${job.name}" was saved.` });
            setEditing(undefined);
          }}
        />
      </section>
    );
  }

  return (
    <div className="space-y-4">
      {!providerConfigured ? <Alert tone="warning">No model provider is configured, so jobs cannot run yet. An administrator needs to set one up (see the README).</Alert> : null}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          {jobs.length} of {maxJobs} jobs
        </p>
        <Button onClick={() => setEditing("new")} disabled={jobs.length >= maxJobs}>
          New job
        </Button>
      </div>
      {notice ? (
        <Alert tone="success">
          {notice.text}{" "}
          {notice.sessionId ? (
            <Link href={`/chat/${notice.sessionId}`} className="font-medium underline">
              {notice.jobId ? "Watch it run" : "Open the trace"}
            </Link>
          ) : null}
        </Alert>
      ) : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      {jobs.length === 0 ? (
        <div className="rounded-xl border border-dashed border-neutral-300 px-4 py-10 text-center dark:border-neutral-700">
          <p className="text-sm font-medium text-neutral-800 dark:text-neutral-200">No scheduled jobs yet</p>
          <p className="mx-auto mt-1 max-w-md text-sm text-neutral-600 dark:text-neutral-400">
            A job runs the agent on a schedule without you: it checks something, stays quiet when all is well, and notifies you when it is not.
          </p>
        </div>
      ) : (
        <ul className="space-y-3" aria-label="Your scheduled jobs">
          {jobs.map((job) => {
            const busy = pendingId === job.id;
            const historyShown = historyOpen.has(job.id);
            const done = !job.nextRunAt && job.enabled && !job.pausedByAdmin && "at" in job.schedule;
            return (
              <li key={job.id} data-testid="job" className="rounded-xl border border-neutral-200 bg-white p-4 shadow-xs dark:border-neutral-800 dark:bg-neutral-900/60">
                <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                  <div className="min-w-0">
                    <h3 className="truncate text-base font-semibold text-neutral-900 dark:text-neutral-100">{job.name}</h3>
                    <p className="mt-0.5 text-sm text-neutral-600 dark:text-neutral-400">{job.scheduleText}</p>
                    <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-neutral-500 dark:text-neutral-400">
                      {job.pausedByAdmin ? (
                        <span className="font-medium text-amber-700 dark:text-amber-400">Paused by an administrator</span>
                      ) : !job.enabled ? (
                        <span className="font-medium text-neutral-700 dark:text-neutral-300">Paused</span>
                      ) : done ? (
                        <span>Done (it ran once)</span>
                      ) : (
                        <span>
                          Next run: <DateTime iso={job.nextRunAt} fallback="not planned" />
                        </span>
                      )}
                      {job.running ? <ExecutionStatusBadge status="running" /> : null}
                      {job.lastStatus ? (
                        <span className="inline-flex items-center gap-1.5">
                          Last: <ExecutionStatusBadge status={job.lastStatus} />
                          <DateTime iso={job.lastRunAt} />
                        </span>
                      ) : (
                        <span>Never ran</span>
                      )}
                    </p>
                  </div>
                  <div className="flex flex-wrap gap-2 sm:justify-end">
                    <Button size="sm" variant="secondary" disabled={busy || job.pausedByAdmin} aria-label={`Run ${job.name} now`} onClick={() => void runNow(job)}>
                      Run now
                    </Button>
                    {!job.pausedByAdmin ? (
                      <Button size="sm" variant="secondary" disabled={busy} aria-label={`${job.enabled ? "Pause" : "Resume"} ${job.name}`} onClick={() => void setEnabled(job, !job.enabled)}>
                        {job.enabled ? "Pause" : "Resume"}
                      </Button>
                    ) : null}
                    <Button size="sm" variant="ghost" aria-label={`Edit ${job.name}`} onClick={() => setEditing(job)}>
                      Edit
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-expanded={historyShown}
                      aria-controls={`history-${job.id}`}
                      aria-label={`${historyShown ? "Hide" : "Show"} history of ${job.name}`}
                      onClick={() =>
                        historyShown
                          ? setHistoryOpen((open) => {
                              const next = new Set(open);
                              next.delete(job.id);
                              return next;
                            })
                          : showHistory(job.id)
                      }
                    >
                      History
                    </Button>
                    <Button size="sm" variant="danger" aria-label={`Delete ${job.name}`} onClick={() => deletion.ask(job)}>
                      Delete
                    </Button>
                  </div>
                </div>
                {historyShown ? (
                  <div id={`history-${job.id}`} className="mt-3">
                    <JobHistory jobId={job.id} jobName={job.name} version={historyVersion[job.id] ?? 0} onSettled={() => void reloadJob(job.id)} />
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      <ConfirmDialog {...deletion.dialog} title={`Delete "${deletion.subject?.name ?? ""}"?`} confirmLabel="Delete job" destructive onConfirm={confirmDelete}>
        It stops running and its history is removed. The traces of its past runs stay until they expire.
      </ConfirmDialog>
    </div>
  );
}

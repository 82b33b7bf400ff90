"use client";

import Link from "next/link";
import { useEffect, useId, useMemo, useState, type FormEvent } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName, TextField } from "@/components/ui/text-field";
import type { TChronosJobView, TChronosSchedule, TChronosToolChoice, TNotificationChannelView } from "@/lib/wire/chronos";

/**
 * Create or edit a scheduled job. The schedule preview asks the server (the one place that
 * decides what a schedule means) and shows the next five runs in the reader's time zone, or the
 * reason the schedule is refused, while the person types.
 */
export type TJobLimits = { minIntervalMinutes: number; defaultMaxSteps: number; maxMaxSteps: number; defaultTimeoutSeconds: number; maxTimeoutSeconds: number };

type TScheduleKind = "every" | "cron" | "at";

function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

function timeZones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(key: string): string[] }).supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}

/** "2026-12-24T18:00" in the browser's zone for a datetime-local input. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function scheduleOf(kind: TScheduleKind, values: { every: string; cron: string; tz: string; at: string }): TChronosSchedule | undefined {
  if (kind === "every") return values.every.trim() ? { everyMinutes: Number(values.every) } : undefined;
  if (kind === "cron") return values.cron.trim() ? { cron: values.cron.trim(), tz: values.tz.trim() || "UTC" } : undefined;
  if (!values.at) return undefined;
  const date = new Date(values.at);
  return Number.isNaN(date.getTime()) ? undefined : { at: date.toISOString() };
}

type TPreview = { state: "idle" } | { state: "loading" } | { state: "ok"; text: string; runs: string[] } | { state: "error"; message: string };

export function JobForm({
  job,
  tools,
  channels,
  limits,
  onSaved,
  onCancel,
}: {
  job?: TChronosJobView;
  tools: TChronosToolChoice[];
  channels: TNotificationChannelView[];
  limits: TJobLimits;
  onSaved: (job: TChronosJobView) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const initial = job?.schedule;
  const [name, setName] = useState(job?.name ?? "");
  const [kind, setKind] = useState<TScheduleKind>(initial && "cron" in initial ? "cron" : initial && "at" in initial ? "at" : "every");
  const [every, setEvery] = useState(initial && "everyMinutes" in initial ? String(initial.everyMinutes) : String(Math.max(limits.minIntervalMinutes, 15)));
  const [cron, setCron] = useState(initial && "cron" in initial ? initial.cron : "0 9 * * *");
  const [tz, setTz] = useState(initial && "cron" in initial ? initial.tz : browserTimeZone());
  const [at, setAt] = useState(initial && "at" in initial ? toLocalInput(initial.at) : "");
  const [prompt, setPrompt] = useState(job?.prompt ?? "");
  const [selectedTools, setSelectedTools] = useState<Set<string>>(new Set(job?.tools ?? tools.filter((tool) => tool.recommended).map((tool) => tool.name)));
  const [maxSteps, setMaxSteps] = useState(String(job?.maxSteps ?? limits.defaultMaxSteps));
  const [timeoutSeconds, setTimeoutSeconds] = useState(String(job?.timeoutSeconds ?? limits.defaultTimeoutSeconds));
  const [selectedChannels, setSelectedChannels] = useState<Set<string>>(new Set(job?.channels ?? channels.filter((channel) => channel.enabled).map((channel) => channel.id)));
  const [enabled, setEnabled] = useState(job?.enabled ?? true);
  const [previewResult, setPreviewResult] = useState<{ key: string; value: TPreview }>();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const zones = useMemo(() => timeZones(), []);
  const readerZone = useMemo(() => browserTimeZone(), []);
  const schedule = scheduleOf(kind, { every, cron, tz, at });
  const scheduleKey = JSON.stringify(schedule ?? null);
  const preview: TPreview = !schedule ? { state: "idle" } : previewResult?.key === scheduleKey ? previewResult.value : { state: "loading" };

  useEffect(() => {
    const current = JSON.parse(scheduleKey) as TChronosSchedule | null;
    if (!current) return;
    const controller = new AbortController();
    // Asked once the person pauses typing, not on every keystroke.
    const timer = setTimeout(async () => {
      let value: TPreview;
      try {
        const result = await apiRequest<{ scheduleText: string; nextRuns: string[] }>("/api/jobs/preview", { method: "POST", body: { schedule: current } });
        value = { state: "ok", text: result.scheduleText, runs: result.nextRuns };
      } catch (caught) {
        value = { state: "error", message: errorMessage(caught) };
      }
      if (!controller.signal.aborted) setPreviewResult({ key: scheduleKey, value });
    }, 400);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [scheduleKey]);

  function toggle(set: Set<string>, value: string, update: (next: Set<string>) => void) {
    const next = new Set(set);
    if (next.has(value)) next.delete(value);
    else next.add(value);
    update(next);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(undefined);
    if (!schedule) {
      setError(kind === "at" ? "Choose the date and time it should run." : "Fill in the schedule.");
      return;
    }
    setSaving(true);
    const body = {
      name,
      schedule,
      prompt,
      tools: [...selectedTools],
      maxSteps: Number(maxSteps),
      timeoutSeconds: Number(timeoutSeconds),
      channels: [...selectedChannels],
      enabled,
    };
    try {
      const result = job
        ? await apiRequest<{ job: TChronosJobView }>(`/api/jobs/${encodeURIComponent(job.id)}`, { method: "PATCH", body })
        : await apiRequest<{ job: TChronosJobView }>("/api/jobs", { method: "POST", body });
      onSaved(result.job);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setSaving(false);
    }
  }

  const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  const labelClass = "text-sm font-medium text-neutral-800 dark:text-neutral-200";

  return (
    <form onSubmit={onSubmit} className="space-y-5" aria-label={job ? `Edit ${job.name}` : "New scheduled job"} noValidate>
      <TextField label="Name" name="name" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} placeholder="e.g. Disk check" required />

      <fieldset className="space-y-3">
        <legend className={labelClass}>Schedule</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2 text-sm">
          {(
            [
              ["every", "Every N minutes"],
              ["cron", "Cron"],
              ["at", "Once"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="inline-flex items-center gap-2">
              <input type="radio" name={`${id}-kind`} value={value} checked={kind === value} onChange={() => setKind(value)} className="size-4 accent-neutral-900 dark:accent-neutral-100" />
              {label}
            </label>
          ))}
        </div>
        {kind === "every" ? (
          <TextField
            label="Minutes between runs"
            name="everyMinutes"
            type="number"
            inputMode="numeric"
            min={limits.minIntervalMinutes}
            value={every}
            onChange={(event) => setEvery(event.target.value)}
            hint={`At least ${limits.minIntervalMinutes}. Counted from when you save.`}
            className="max-w-xs"
          />
        ) : null}
        {kind === "cron" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField
              label="Cron expression"
              name="cron"
              value={cron}
              onChange={(event) => setCron(event.target.value)}
              spellCheck={false}
              autoComplete="off"
              className="font-mono"
              hint="Five fields: minute hour day-of-month month day-of-week, e.g. 0 9 * * 1-5."
            />
            <div>
              <TextField label="Time zone" name="tz" value={tz} onChange={(event) => setTz(event.target.value)} list={`${id}-zones`} autoComplete="off" hint="An IANA name such as Europe/Berlin." />
              <datalist id={`${id}-zones`}>
                {zones.map((zone) => (
                  <option key={zone} value={zone} />
                ))}
              </datalist>
            </div>
          </div>
        ) : null}
        {kind === "at" ? <TextField label="Date and time" name="at" type="datetime-local" value={at} onChange={(event) => setAt(event.target.value)} hint={`In your time zone (${readerZone}).`} className="max-w-xs" /> : null}
        <div aria-live="polite" className="rounded-lg bg-neutral-50 px-3 py-2 text-sm dark:bg-neutral-900" data-testid="schedule-preview">
          {preview.state === "loading" ? (
            <span className="text-neutral-500 dark:text-neutral-400">Checking the schedule…</span>
          ) : preview.state === "error" ? (
            <span className="text-red-700 dark:text-red-300">{preview.message}</span>
          ) : preview.state === "ok" ? (
            <div>
              <p className="font-medium text-neutral-800 dark:text-neutral-200">
                Next runs <span className="font-normal text-neutral-500 dark:text-neutral-400">({preview.text}; shown in your time zone, {readerZone})</span>
              </p>
              <ol className="mt-1 list-inside list-decimal text-neutral-700 dark:text-neutral-300">
                {preview.runs.map((run) => (
                  <li key={run}>
                    <time dateTime={run}>{formatter.format(new Date(run))}</time>
                  </li>
                ))}
              </ol>
            </div>
          ) : (
            <span className="text-neutral-500 dark:text-neutral-400">Fill in the schedule to see when it runs.</span>
          )}
        </div>
      </fieldset>

      <div>
        <label htmlFor={`${id}-prompt`} className={labelClass}>
          Task
        </label>
        <textarea
          id={`${id}-prompt`}
          name="prompt"
          rows={5}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
          maxLength={20_000}
          aria-describedby={`${id}-prompt-hint`}
          placeholder="e.g. Scan my workspace for secrets. If the result is FOUND, notify me with the files and lines."
          className={`${inputClassName} mt-1.5 h-auto py-2`}
        />
        <p id={`${id}-prompt-hint`} className="mt-1.5 text-xs text-neutral-500 dark:text-neutral-400">
          The run works unattended: it stays silent when all is well and calls notify when something needs you.
        </p>
      </div>

      <fieldset>
        <legend className={labelClass}>Tools</legend>
        <p className="mt-1 text-xs text-neutral-500 dark:text-neutral-400">
          Tools that write or execute need an approval, which nobody can give during an unattended run: such calls are refused and recorded.
        </p>
        <ul className="mt-2 grid gap-1.5 sm:grid-cols-2">
          {tools.map((tool) => (
            <li key={tool.name}>
              <label className="flex items-start gap-2 text-sm" title={tool.description}>
                <input
                  type="checkbox"
                  className="mt-0.5 size-4 accent-neutral-900 dark:accent-neutral-100"
                  checked={tool.required || selectedTools.has(tool.name)}
                  disabled={tool.required}
                  onChange={() => toggle(selectedTools, tool.name, setSelectedTools)}
                />
                <span>
                  <span className="font-mono text-xs">{tool.name}</span>
                  <span className="ml-1.5 text-xs text-neutral-500 dark:text-neutral-400">{tool.required ? "always" : tool.risk === "read" ? "read-only" : `${tool.risk}, needs approval`}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>

      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          label="Max steps"
          name="maxSteps"
          type="number"
          inputMode="numeric"
          min={1}
          max={limits.maxMaxSteps}
          value={maxSteps}
          onChange={(event) => setMaxSteps(event.target.value)}
          hint={`Model calls per run, at most ${limits.maxMaxSteps}.`}
        />
        <TextField
          label="Time limit (seconds)"
          name="timeoutSeconds"
          type="number"
          inputMode="numeric"
          min={10}
          max={limits.maxTimeoutSeconds}
          value={timeoutSeconds}
          onChange={(event) => setTimeoutSeconds(event.target.value)}
          hint={`At most ${limits.maxTimeoutSeconds}.`}
        />
      </div>

      <fieldset>
        <legend className={labelClass}>Notify through</legend>
        <ul className="mt-2 space-y-1.5 text-sm">
          <li>
            <label className="flex items-center gap-2">
              <input type="checkbox" checked disabled className="size-4 accent-neutral-900 dark:accent-neutral-100" />
              In-app notifications (always)
            </label>
          </li>
          {channels.map((channel) => (
            <li key={channel.id}>
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  className="size-4 accent-neutral-900 dark:accent-neutral-100"
                  checked={selectedChannels.has(channel.id)}
                  onChange={() => toggle(selectedChannels, channel.id, setSelectedChannels)}
                />
                {channel.name} <span className="text-xs text-neutral-500 dark:text-neutral-400">({channel.kind}{channel.enabled ? "" : ", switched off"})</span>
              </label>
            </li>
          ))}
        </ul>
        <p className="mt-1.5 text-xs text-neutral-500 dark:text-neutral-400">
          Feishu, webhook and log channels are set up in{" "}
          <Link href="/settings#notifications" className="font-medium text-blue-700 hover:underline dark:text-blue-400">
            Settings → Notifications
          </Link>
          .
        </p>
      </fieldset>

      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} className="size-4 accent-neutral-900 dark:accent-neutral-100" />
        Run on schedule (switch off to pause)
      </label>

      {error ? <Alert tone="error">{error}</Alert> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onCancel} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" pending={saving}>
          {job ? "Save changes" : "Create job"}
        </Button>
      </div>
    </form>
  );
}

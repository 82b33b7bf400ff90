"use client";

import { useEffect, useRef, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CloseIcon, RefreshIcon } from "@/components/ui/icons";
import { usePreferences } from "./hooks/use-preferences";
import { contextSavings, groupStepsByTurn } from "./steps-model";
import type { TStepRow } from "./types";

type TForkResponse = { session: { id: string; title: string } };
type TRollbackResponse = { removed: number };

const TYPE_LABELS: Record<TStepRow["type"], string> = { user_input: "Message", model_call: "Model", tool_call: "Tool", system_note: "Note", command: "Command" };

function inputText(step: TStepRow): string | undefined {
  const input = step.input;
  return input && typeof input === "object" && "text" in input && typeof input.text === "string" ? input.text : undefined;
}

function describe(step: TStepRow): string {
  if (step.type === "tool_call") return step.name;
  if (step.type === "model_call") return step.model ?? "model call";
  if (step.type === "user_input") {
    const text = inputText(step);
    return text !== undefined ? `“${text.replace(/\s+/g, " ").trim()}”` : "your message";
  }
  if (step.type === "system_note") {
    return inputText(step) ?? step.name;
  }
  return step.name;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function stepDetails(step: TStepRow): string {
  const timed = step.type === "model_call" || step.type === "tool_call";
  return [
    timed && step.durationMs !== null ? formatMs(step.durationMs) : null,
    step.inputTokens !== null ? `${step.inputTokens} → ${step.outputTokens ?? 0} tokens` : null,
    contextSavings(step),
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * The session's trace, turn by turn (each message and what answered it): every step with its
 * status, time and tokens, and per step "Rollback to" (after a confirmation) and "Fork at". The
 * step ids can also be shown in the conversation (a preference, off by default). A side column on
 * wide screens, a bottom sheet on phones.
 */
export function StepsPanel({
  id,
  sessionId,
  open,
  version,
  busy,
  onClose,
  onRolledBack,
  onForked,
}: {
  id: string;
  sessionId: string;
  open: boolean;
  /** Bumped by the chat after each run, so an open panel shows the new steps. */
  version: number;
  busy: boolean;
  onClose: () => void;
  onRolledBack: (result: { key: string; removed: number }) => void;
  onForked: (session: { id: string; title: string }) => void;
}) {
  const [steps, setSteps] = useState<TStepRow[]>();
  const [refreshCount, setRefreshCount] = useState(0);
  const [loadedKey, setLoadedKey] = useState<string>();
  // Loading and forking say what went wrong above the list; a rollback, in its dialog.
  const { pending: forkingKey, feedback, run, fail, clear } = useAction();
  const rollbackConfirmation = useConfirmation<string>();
  const rollbackKey = rollbackConfirmation.subject;
  const panel = useRef<HTMLElement>(null);
  const [preferences, setPreferences] = usePreferences();
  const scroller = useRef<HTMLDivElement>(null);

  const requestKey = `${version}:${refreshCount}`;
  const loading = open && loadedKey !== requestKey;
  const load = () => setRefreshCount((count) => count + 1);

  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    apiRequest<{ steps: TStepRow[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/steps`).then(
      (body) => {
        if (cancelled) return;
        setSteps(body.steps);
        clear();
        setLoadedKey(requestKey);
      },
      (caught: unknown) => {
        if (cancelled) return;
        fail(caught);
        setLoadedKey(requestKey);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [open, sessionId, requestKey, clear, fail]);

  useEffect(() => {
    if (!open) return;
    panel.current?.focus();
  }, [open]);

  // The newest step is the interesting one.
  useEffect(() => {
    if (open && scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight;
  }, [open, steps]);

  const rollback = rollbackConfirmation.confirm(async (key) => {
    const result = await apiRequest<TRollbackResponse>(`/api/sessions/${encodeURIComponent(sessionId)}/rollback`, { method: "POST", body: { stepId: key } });
    onRolledBack({ key, removed: result.removed });
    load();
  });

  const fork = (key: string) =>
    run(key, async () => {
      const result = await apiRequest<TForkResponse>(`/api/sessions/${encodeURIComponent(sessionId)}/fork`, { method: "POST", body: { stepId: key } });
      onForked(result.session);
    });

  return (
    <>
      {open ? <div className="fixed inset-0 z-40 bg-neutral-950/40 lg:hidden" aria-hidden="true" onClick={onClose} /> : null}
      <aside
        id={id}
        ref={panel}
        tabIndex={-1}
        aria-labelledby={`${id}-title`}
        hidden={!open}
        onKeyDown={(event) => {
          if (event.key === "Escape" && !rollbackKey) {
            event.stopPropagation();
            onClose();
          }
        }}
        className={[
          "z-50 flex-col bg-white outline-none dark:bg-neutral-950",
          "fixed inset-x-0 bottom-0 max-h-[85dvh] rounded-t-2xl border-t border-neutral-200 shadow-2xl dark:border-neutral-800",
          "lg:static lg:z-auto lg:max-h-none lg:w-80 lg:shrink-0 lg:rounded-none lg:border-t-0 lg:border-l lg:shadow-none xl:w-96",
          open ? "flex" : "hidden",
        ].join(" ")}
      >
        <div className="flex h-14 shrink-0 items-center justify-between gap-2 border-b border-neutral-200 px-4 dark:border-neutral-800">
          <h2 id={`${id}-title`} className="text-sm font-semibold text-neutral-900 dark:text-neutral-100">
            Steps
          </h2>
          <div className="flex items-center gap-1">
            <Button variant="ghost" size="sm" onClick={load} pending={loading} aria-label="Refresh the step list">
              {loading ? null : <RefreshIcon />}
            </Button>
            <Button variant="ghost" size="sm" onClick={onClose} aria-label="Hide the step list">
              <CloseIcon />
            </Button>
          </div>
        </div>
        <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto px-3 py-3">
          <FeedbackAlert feedback={feedback} className="mb-3" />
          <label className="mb-3 flex items-center gap-2 px-1 text-xs text-neutral-700 dark:text-neutral-300">
            <input
              type="checkbox"
              checked={preferences.showStepIds}
              onChange={(event) => setPreferences({ showStepIds: event.target.checked })}
              className="size-4 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:accent-neutral-100"
            />
            Show step ids in the conversation
          </label>
          {busy ? (
            <p className="mb-3 text-xs text-neutral-500 dark:text-neutral-400">A run is in progress: rollback and fork are available once it ends.</p>
          ) : null}
          {steps === undefined ? (
            <p className="px-1 text-sm text-neutral-500 dark:text-neutral-400">Loading steps…</p>
          ) : steps.length === 0 ? (
            <p className="px-1 text-sm text-neutral-500 dark:text-neutral-400">No steps yet. Every message, model call and tool call becomes a step here.</p>
          ) : (
            <ol className="space-y-4" aria-label="Steps of this chat, by turn">
              {groupStepsByTurn(steps).map((turn, turnIndex) => (
                <li key={turn.key} data-testid="step-turn">
                  <h3 className="mb-1.5 flex items-baseline gap-2 px-1 text-xs font-semibold text-neutral-600 dark:text-neutral-300">
                    <span className="shrink-0">Turn {turnIndex + 1}</span>
                    <span className="truncate font-normal text-neutral-500 dark:text-neutral-400" title={turn.label}>
                      {turn.label}
                    </span>
                  </h3>
                  <ol className="space-y-2">
                    {turn.steps.map((step) => (
                      <StepItem
                        key={step.key}
                        step={step}
                        busy={busy}
                        forking={forkingKey === step.key}
                        onRollback={() => rollbackConfirmation.ask(step.key)}
                        onFork={() => void fork(step.key)}
                      />
                    ))}
                  </ol>
                </li>
              ))}
            </ol>
          )}
        </div>
      </aside>
      <ConfirmDialog {...rollbackConfirmation.dialog} title={`Roll back to ${rollbackKey ?? ""}?`} confirmLabel="Roll back" destructive onConfirm={rollback}>
        Step {rollbackKey} and every step after it are removed from this chat, as if they never happened. To keep them, fork instead.
      </ConfirmDialog>
    </>
  );
}

function StepItem({ step, busy, forking, onRollback, onFork }: { step: TStepRow; busy: boolean; forking: boolean; onRollback: () => void; onFork: () => void }) {
  return (
    <li data-testid="step-row" className="rounded-lg border border-neutral-200 px-3 py-2 text-sm dark:border-neutral-800">
      <div className="flex items-center gap-2">
        <span className="font-mono text-xs font-medium text-neutral-900 dark:text-neutral-100">{step.key}</span>
        <span className="text-xs text-neutral-500 dark:text-neutral-400">{TYPE_LABELS[step.type]}</span>
        <StatusBadge status={step.status} />
      </div>
      <p className="mt-1 truncate text-neutral-800 dark:text-neutral-200" title={describe(step)}>
        {describe(step)}
      </p>
      {stepDetails(step) ? <p className="mt-0.5 text-xs text-neutral-500 dark:text-neutral-400">{stepDetails(step)}</p> : null}
      {step.error ? <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">{step.error}</p> : null}
      {step.childSessions?.length ? (
        <ul aria-label={`Workers of ${step.key}`} className="mt-1.5 space-y-0.5 border-l-2 border-neutral-200 pl-2 text-xs dark:border-neutral-700">
          {step.childSessions.map((child) => (
            <li key={child.sessionId}>
              <a href={`/chat/${child.sessionId}`} className="underline underline-offset-2 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:hover:text-neutral-100">
                {child.agent}
              </a>{" "}
              <span className="text-neutral-500 dark:text-neutral-400">{child.status.replace("_", " ")}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="mt-2 flex gap-2">
        <Button variant="secondary" size="sm" aria-label={`Rollback to ${step.key}`} disabled={busy} onClick={onRollback}>
          Rollback
        </Button>
        <Button variant="secondary" size="sm" aria-label={`Fork at ${step.key}`} disabled={busy} pending={forking} onClick={onFork}>
          Fork
        </Button>
      </div>
    </li>
  );
}

function StatusBadge({ status }: { status: TStepRow["status"] }) {
  const tones = {
    running: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300",
    completed: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300",
    failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  };
  return <span className={`ml-auto rounded-full px-2 py-0.5 text-[11px] font-medium ${tones[status]}`}>{status}</span>;
}

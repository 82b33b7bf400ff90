"use client";

import type { DynamicToolUIPart } from "ai";
import Link from "next/link";
import { useState } from "react";
import { apiRequest, apiStream, errorMessage } from "@/components/api-request";
import { FileIcon } from "@/components/ui/icons";
import type { TAgentCallKind, TAgentsCardDetail, TWorkerApproval, TWorkerResult, TWorkerStatus, TWorkerView } from "@/lib/wire/agents";
import { ApprovalCard } from "./approval-card";
import { Markdown } from "./markdown";
import type { TApprovalDecision, TLocalDecision, TToolOutputView } from "./types";

/**
 * The card of a delegate / debate / pipeline call (and of agent_results): one row per worker with
 * its status, what it is writing right now, its answer, the files it delivered, a link to its own
 * trace, and — when it waits for approval — Approve / Deny right here (the decision goes to the
 * worker's session; only that worker was waiting). Live state comes from the tool's progress
 * detail; once the call has finished (and after a reload) from its JSON result.
 */
export const AGENT_TOOLS = ["delegate", "debate", "pipeline", "agent_results"];

const STATUS: Record<TWorkerStatus, { text: string; tone: string }> = {
  queued: { text: "Queued", tone: "text-neutral-500 dark:text-neutral-400" },
  running: { text: "Working…", tone: "text-blue-700 dark:text-blue-300" },
  paused: { text: "Waiting for your approval", tone: "text-amber-700 dark:text-amber-300" },
  completed: { text: "Done", tone: "text-green-700 dark:text-green-400" },
  failed: { text: "Failed", tone: "text-red-700 dark:text-red-300" },
  timed_out: { text: "Timed out", tone: "text-red-700 dark:text-red-300" },
  cancelled: { text: "Cancelled", tone: "text-neutral-500 dark:text-neutral-400" },
};

const RESULT_STATUS: Record<TWorkerResult["status"], TWorkerStatus> = { success: "completed", error: "failed", timeout: "timed_out", cancelled: "cancelled" };

function fromResult(result: TWorkerResult, index: number): TWorkerView {
  return {
    index,
    agent: result.agent,
    status: RESULT_STATUS[result.status] ?? "failed",
    sessionId: result.session,
    summary: result.summary,
    replyStatus: result.status === "success" ? "success" : "error",
    artifacts: Object.values(result.artifact_pointers ?? {}),
    error: result.error ?? null,
    inputTokens: result.tokens?.input ?? 0,
    outputTokens: result.tokens?.output ?? 0,
  };
}

/** The workers as the finished call reported them (its JSON result), if it is one. */
function fromOutput(text: string | undefined): TAgentsCardDetail | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const value = parsed as { results?: TWorkerResult[]; steps?: TWorkerResult[]; agent?: string };
  if (Array.isArray(value.results)) return { kind: "debate", workers: value.results.map(fromResult) };
  if (Array.isArray(value.steps)) return { kind: "pipeline", workers: value.steps.map(fromResult) };
  if (typeof value.agent === "string") return { kind: "delegate", workers: [fromResult(value as TWorkerResult, 0)] };
  return undefined;
}

function summaryText(summary: unknown): string {
  if (summary === undefined || summary === null) return "";
  if (typeof summary === "string") return summary;
  return "```json\n" + JSON.stringify(summary, null, 2) + "\n```";
}

const TITLES: Record<TAgentCallKind, string> = { delegate: "Delegated", debate: "Debate", pipeline: "Pipeline" };

export function AgentsCard({ part, active, progress }: { part: DynamicToolUIPart; active: boolean; progress?: { text: string; fraction?: number; detail?: unknown } }) {
  const output = (part.state === "output-available" ? part.output : undefined) as Partial<TToolOutputView> | string | undefined;
  const outputText = typeof output === "string" ? output : output?.text;
  const finished = part.state === "output-available" || part.state === "output-error";
  const failedCall = part.state === "output-error" || (typeof output === "object" && output?.isError === true);
  const detail = (finished ? fromOutput(outputText) : undefined) ?? (progress?.detail as TAgentsCardDetail | undefined);
  const kind: TAgentCallKind = detail?.kind ?? (part.toolName === "debate" || part.toolName === "pipeline" ? part.toolName : "delegate");
  const input = (part.input ?? {}) as { question?: string; task?: string; agent?: string };
  const subject = input.question ?? input.task;

  return (
    <section
      data-testid="agents-card"
      data-tool={part.toolName}
      aria-label={`${TITLES[kind]}${detail ? ` with ${detail.workers.map((worker) => worker.agent).join(", ")}` : ""}`}
      className="my-3 overflow-hidden rounded-lg border border-neutral-200 text-sm dark:border-neutral-800"
    >
      <header className="flex flex-wrap items-center gap-x-2 gap-y-1 bg-neutral-50 px-3 py-2 dark:bg-neutral-900">
        <span className="font-mono font-medium text-neutral-900 dark:text-neutral-100">{part.toolName}</span>
        <span className="text-neutral-600 dark:text-neutral-400">
          {failedCall ? "Refused" : finished ? "Finished" : active ? (progress?.text ?? "Starting workers…") : "Did not finish"}
        </span>
        {typeof progress?.fraction === "number" && !finished ? (
          <progress className="ml-auto h-1.5 w-24 accent-blue-600" max={1} value={Math.min(1, Math.max(0, progress.fraction))} aria-label="Workers finished" />
        ) : null}
      </header>
      {subject ? <p className="border-t border-neutral-200 px-3 py-1.5 text-xs break-words text-neutral-600 dark:border-neutral-800 dark:text-neutral-400">{subject.length > 300 ? `${subject.slice(0, 299)}…` : subject}</p> : null}
      {failedCall && outputText ? <p className="border-t border-red-200 bg-red-50 px-3 py-2 text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-200">{outputText}</p> : null}
      {detail ? (
        <ol className="divide-y divide-neutral-200 border-t border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {detail.workers.map((worker) => (
            <WorkerRow key={`${worker.index}-${worker.agent}`} worker={worker} step={kind === "pipeline" ? worker.index + 1 : undefined} />
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/**
 * Decides a worker's approval. The worker goes on by itself and its row follows through the
 * parent's progress, so the answer's stream (the worker's continuation) is not read.
 */
async function decide(sessionId: string, approval: TWorkerApproval, decision: TApprovalDecision): Promise<void> {
  const stream = await apiStream(`/api/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approval.approvalId)}`, { body: decision });
  await stream?.cancel().catch(() => {});
}

function WorkerRow({ worker, step }: { worker: TWorkerView; step?: number }) {
  const [decided, setDecided] = useState<TLocalDecision>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const status = STATUS[worker.status] ?? STATUS.failed;
  const summary = summaryText(worker.summary);

  return (
    <li data-testid="worker-row" data-agent={worker.agent} data-status={worker.status} className="px-3 py-2.5">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        {step ? <span className="font-mono text-xs text-neutral-500 dark:text-neutral-400">{step}.</span> : null}
        <span className="font-medium text-neutral-900 dark:text-neutral-100">{worker.agent}</span>
        <span className={`text-xs font-medium ${status.tone}`} role={worker.status === "running" ? "status" : undefined}>
          {worker.status === "completed" && worker.replyStatus === "error" ? "Done: could not do it" : status.text}
        </span>
        <span className="ml-auto flex items-center gap-3 text-xs text-neutral-500 dark:text-neutral-400">
          {worker.inputTokens + worker.outputTokens > 0 ? <span title="Tokens in / out">{worker.inputTokens.toLocaleString()} / {worker.outputTokens.toLocaleString()} tokens</span> : null}
          {worker.sessionId ? (
            <Link href={`/chat/${worker.sessionId}`} className="font-medium underline underline-offset-2 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:hover:text-neutral-100">
              Trace<span className="sr-only"> of {worker.agent}</span>
            </Link>
          ) : null}
        </span>
      </div>
      {worker.live && (worker.status === "running" || worker.status === "queued") ? (
        <p data-testid="worker-live" className="mt-1.5 line-clamp-4 font-mono text-xs break-words whitespace-pre-wrap text-neutral-600 dark:text-neutral-400">
          {worker.live}
        </p>
      ) : null}
      {summary ? (
        <div data-testid="worker-summary" className="mt-1.5 max-h-72 overflow-auto text-[13px] leading-6">
          <Markdown text={summary} />
        </div>
      ) : null}
      {worker.error ? <p className="mt-1.5 text-xs text-red-700 dark:text-red-300">{worker.error}</p> : null}
      {worker.artifacts.length ? (
        <ul aria-label={`Files ${worker.agent} delivered`} className="mt-1.5 space-y-1">
          {worker.artifacts.map((path) => (
            <Artifact key={path} path={path} />
          ))}
        </ul>
      ) : null}
      {worker.approval && worker.sessionId ? (
        <>
          <ApprovalCard
            approval={worker.approval}
            decided={decided}
            disabled={busy}
            onDecide={async (chosen, decision) => {
              setBusy(true);
              setError(undefined);
              try {
                await decide(worker.sessionId!, chosen, decision);
                setDecided({ status: decision.decision === "approve" ? "approved" : "denied" });
              } catch (caught) {
                setError(errorMessage(caught));
              } finally {
                setBusy(false);
              }
            }}
          />
          {error ? <p role="alert" className="text-xs text-red-700 dark:text-red-300">{error}</p> : null}
        </>
      ) : null}
    </li>
  );
}

function Artifact({ path }: { path: string }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState<string>();
  const [error, setError] = useState<string>();
  async function toggle() {
    setOpen((value) => !value);
    if (text !== undefined || open) return;
    try {
      setText((await apiRequest<{ text?: string }>(`/api/agents/artifacts?path=${encodeURIComponent(path)}`)).text ?? "");
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }
  return (
    <li>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => void toggle()}
        className="inline-flex max-w-full items-center gap-1.5 rounded px-1 font-mono text-xs text-neutral-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-neutral-300"
      >
        <FileIcon size="sm" />
        <span className="truncate">{path}</span>
      </button>
      {open ? (
        error ? (
          <p className="mt-1 text-xs text-red-700 dark:text-red-300">{error}</p>
        ) : (
          <pre tabIndex={0} className="mt-1 max-h-64 overflow-auto rounded bg-neutral-50 px-2 py-1.5 font-mono text-xs whitespace-pre-wrap dark:bg-neutral-900">
            {text ?? "Loading…"}
          </pre>
        )
      ) : null}
    </li>
  );
}

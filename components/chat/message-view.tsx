"use client";

import { memo } from "react";
import { AGENT_TOOLS, AgentsCard } from "./agents-card";
import { ApprovalCard } from "./approval-card";
import { Markdown } from "./markdown";
import { ToolCard } from "./tool-card";
import type { TApprovalDecision, TApprovalView, TChatMessage, TNoticeTone } from "./types";

const NOTICE_TONES: Record<TNoticeTone, string> = {
  info: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-900/70 dark:bg-blue-950/40 dark:text-blue-200",
  warning: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/70 dark:bg-amber-950/40 dark:text-amber-200",
  error: "border-red-200 bg-red-50 text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-200",
};

function messageText(message: TChatMessage): string {
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}

export function StepLabel({ stepKey }: { stepKey: string }) {
  return (
    <span data-testid="step-label" className="inline-block rounded bg-neutral-100 px-1.5 py-0.5 font-mono text-[11px] leading-none text-neutral-500 dark:bg-neutral-800 dark:text-neutral-400">
      <span className="sr-only">Step </span>
      {stepKey}
    </span>
  );
}

export const UserMessage = memo(function UserMessage({ message, stepKey, showStepLabels }: { message: TChatMessage; stepKey?: string; showStepLabels: boolean }) {
  return (
    <div data-testid="user-message" className="flex flex-col items-end gap-1">
      <h3 className="sr-only">You said</h3>
      <div className="max-w-[85%] rounded-2xl rounded-br-md bg-neutral-100 px-4 py-2.5 text-[15px] leading-7 break-words whitespace-pre-wrap text-neutral-900 dark:bg-neutral-800 dark:text-neutral-100">
        {messageText(message)}
      </div>
      {showStepLabels && stepKey ? <StepLabel stepKey={stepKey} /> : null}
    </div>
  );
});

/**
 * An assistant reply, part by part. `active` marks the reply being streamed: only there can a tool
 * still be running. A `data-text-discard` part hides the text part before it (a provider failed midway
 * and the next one started over).
 */
export const AssistantMessage = memo(function AssistantMessage({
  message,
  active,
  showStepLabels,
  decisions,
  busy,
  onDecide,
}: {
  message: TChatMessage;
  active: boolean;
  showStepLabels: boolean;
  /** Approvals decided on this page, by approval id. */
  decisions: Readonly<Record<string, "approved" | "denied">>;
  busy: boolean;
  onDecide: (approval: TApprovalView, decision: TApprovalDecision) => void;
}) {
  const approvals = new Map<string, TApprovalView["status"]>();
  const progress = new Map<string, { text: string; fraction?: number; detail?: unknown }>();
  for (const part of message.parts) {
    if (part.type === "data-approval") approvals.set(part.data.toolCallId, decisions[part.data.approvalId] ?? part.data.status);
    if (part.type === "data-progress") progress.set(part.data.toolCallId, part.data);
  }
  const hidden = new Set<number>();
  let lastText: number | undefined;
  let lastNotice: { text: string; index: number } | undefined;
  message.parts.forEach((part, index) => {
    if (part.type === "text") lastText = index;
    else if (part.type === "data-text-discard" && lastText !== undefined) {
      hidden.add(lastText);
      lastText = undefined;
    }
    // The stored history can say the same thing twice in a row (a failed step and a note).
    if (part.type === "data-notice") {
      const normalized = part.data.text.trim().replace(/\.$/, "").toLowerCase();
      if (normalized === lastNotice?.text) hidden.add(lastNotice.index);
      lastNotice = { text: normalized, index };
    } else if (part.type !== "data-step" && part.type !== "step-start") lastNotice = undefined;
  });

  const visible = message.parts.some(
    (part, index) =>
      (part.type === "text" && !hidden.has(index) && part.text.trim() !== "") || part.type === "dynamic-tool" || part.type === "data-notice" || part.type === "data-approval",
  );

  return (
    <article data-testid="assistant-message" className="min-w-0 text-neutral-900 dark:text-neutral-100">
      <h3 className="sr-only">xclaw replied</h3>
      {message.parts.map((part, index) => {
        switch (part.type) {
          case "text":
            return hidden.has(index) ? null : <Markdown key={index} text={part.text} />;
          case "dynamic-tool":
            return AGENT_TOOLS.includes(part.toolName) ? (
              <AgentsCard key={part.toolCallId} part={part} active={active} progress={progress.get(part.toolCallId)} />
            ) : (
              <ToolCard key={part.toolCallId} part={part} active={active} approval={approvals.get(part.toolCallId)} progress={progress.get(part.toolCallId)} />
            );
          case "data-approval":
            return (
              <ApprovalCard
                key={`approval-${part.data.approvalId}`}
                approval={part.data}
                decided={decisions[part.data.approvalId]}
                disabled={busy}
                onDecide={onDecide}
              />
            );
          case "data-notice":
            return hidden.has(index) ? null : (
              <p key={index} className={`my-2 rounded-md border px-3 py-1.5 text-sm ${NOTICE_TONES[part.data.tone] ?? NOTICE_TONES.info}`}>
                {part.data.text}
              </p>
            );
          case "data-step":
            return showStepLabels ? (
              <div key={index} className="mt-3 mb-1 first:mt-0">
                <StepLabel stepKey={part.data.key} />
              </div>
            ) : null;
          default:
            return null;
        }
      })}
      {active && !visible ? <Thinking /> : null}
    </article>
  );
});

export function Thinking() {
  return (
    <div className="flex items-center gap-1 py-2" aria-label="xclaw is thinking" role="img">
      {[0, 150, 300].map((delay) => (
        <span key={delay} className="size-1.5 animate-bounce rounded-full bg-neutral-400 dark:bg-neutral-500" style={{ animationDelay: `${delay}ms` }} />
      ))}
    </div>
  );
}

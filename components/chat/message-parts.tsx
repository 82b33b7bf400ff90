"use client";

import { createContext, useContext, type ComponentType, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { ApprovalCard } from "./approval-card";
import { Markdown } from "./markdown";
import type { TToolEntry } from "./message-model";
import { ToolCard, type TToolCardProps } from "./tool-card";
import type { TApprovalDecision, TApprovalView, TChatPart, TLocalDecision, TNoticeTone } from "./types";
import { AGENT_TOOLS, AgentsCard } from "./agents-card";

/**
 * How each part of an assistant message is drawn. Part types map to components here, and tool
 * calls map by tool name to their card (`TOOL_CARDS`): a tool with a card of its own (the
 * multi-agent delegate/debate card, say) registers it there and gets the same props as ToolCard.
 */
export const TOOL_CARDS: Record<string, ComponentType<TToolCardProps>> = Object.fromEntries(AGENT_TOOLS.map((name) => [name, AgentsCard]));

/** What every part needs to know about the conversation around it. */
export type TPartContext = {
  tools: Map<string, TToolEntry>;
  decisions: Readonly<Record<string, TLocalDecision>>;
  busy: boolean;
  /** A decision made here is being sent and its continuation followed. */
  deciding: boolean;
  showStepIds: boolean;
  onDecide: (approval: TApprovalView, decision: TApprovalDecision) => void;
  /** Offered on the interruption notice while the session is interrupted. */
  onResume?: () => void;
  /** Offered on the last reply's error. */
  onRetry?: () => void;
};

export const PartContext = createContext<TPartContext | null>(null);

function usePartContext(): TPartContext {
  const context = useContext(PartContext);
  if (!context) throw new Error("Message parts need a PartContext (message-list.tsx).");
  return context;
}

const NOTICE_TONES: Record<TNoticeTone, string> = {
  info: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-900/70 dark:bg-blue-950/40 dark:text-blue-200",
  warning: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/70 dark:bg-amber-950/40 dark:text-amber-200",
  error: "border-red-200 bg-red-50 text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-200",
};

export function StepLabel({ stepKey }: { stepKey: string }) {
  return (
    <span data-testid="step-label" className="inline-block rounded bg-neutral-100 px-1.5 py-0.5 font-mono text-[11px] leading-none text-neutral-500 dark:bg-neutral-800 dark:text-neutral-400">
      <span className="sr-only">Step </span>
      {stepKey}
    </span>
  );
}

export function Notice({ tone, children, action, testId }: { tone: TNoticeTone; children: ReactNode; action?: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId ?? "notice"} data-tone={tone} className={`my-2 flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-1.5 text-sm ${NOTICE_TONES[tone]}`}>
      <p className="min-w-0 break-words">{children}</p>
      {action}
    </div>
  );
}

/**
 * One part. `activeMessage`: the message belongs to the reply being written (tool calls there may
 * still run; its text may still grow). `lastVisible`: the reply's last drawn part (Retry goes there).
 */
export function MessagePart({ part, activeMessage, lastVisible }: { part: TChatPart; activeMessage: boolean; lastVisible: boolean }) {
  const context = usePartContext();
  switch (part.type) {
    case "text":
      return <Markdown text={part.text} streaming={activeMessage && part.state === "streaming"} />;
    case "dynamic-tool": {
      const entry = context.tools.get(part.toolCallId);
      const latest = entry?.part ?? part;
      const approval = entry?.approval;
      const Card = TOOL_CARDS[latest.toolName] ?? ToolCard;
      return (
        <Card
          part={latest}
          active={activeMessage || (context.deciding && approval !== undefined && context.decisions[approval.approvalId]?.status === "approved")}
          approval={approval}
          decided={approval ? context.decisions[approval.approvalId] : undefined}
          progress={entry?.progress}
          busy={context.busy}
          onDecide={context.onDecide}
        />
      );
    }
    case "data-approval":
      // Only when its tool call is not in the conversation (the call's card shows it otherwise).
      return <ApprovalCard approval={part.data} decided={context.decisions[part.data.approvalId]} disabled={context.busy} onDecide={context.onDecide} />;
    case "data-notice": {
      const { kind, tone, text } = part.data;
      if (kind === "interrupted" && context.onResume) {
        return (
          <Notice tone={tone} testId="interrupted-notice" action={<Button size="sm" onClick={context.onResume} disabled={context.busy}>Resume</Button>}>
            {text}
          </Notice>
        );
      }
      if (tone === "error" && lastVisible && context.onRetry) {
        return (
          <Notice tone="error" testId="run-error" action={<Button size="sm" variant="secondary" onClick={context.onRetry} disabled={context.busy}>Retry</Button>}>
            {text}
          </Notice>
        );
      }
      return <Notice tone={tone}>{text}</Notice>;
    }
    case "data-step":
      return context.showStepIds ? (
        <div className="mt-3 mb-1 first:mt-0">
          <StepLabel stepKey={part.data.key} />
        </div>
      ) : null;
    default:
      // Step boundaries, progress, attachments (drawn by the user message) and transient parts.
      return null;
  }
}

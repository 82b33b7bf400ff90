"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useSessionList } from "@/components/app-shell/session-list-context";
import { useSidebar } from "@/components/app-shell/sidebar-context";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { JumpDownIcon } from "@/components/ui/icons";
import { ChatComposer, type TAttachmentLimits, type TDraftAttachment } from "./chat-composer";
import { describeChatError } from "./chat-error";
import { ChatHeader } from "./chat-header";
import { useApprovals } from "./hooks/use-approvals";
import { useAttention } from "./hooks/use-attention";
import { useChatRun, type TRunEnd } from "./hooks/use-chat-run";
import { usePreferences } from "./hooks/use-preferences";
import { useStickToBottom } from "./hooks/use-stick-to-bottom";
import { MessageList } from "./message-list";
import { messageAttachments, messageText, pendingApproval } from "./message-model";
import { Notice } from "./message-parts";
import { ModelPicker } from "./model-picker";
import { NoProviderNotice } from "./no-provider-notice";
import { StepsPanel } from "./steps-panel";
import type { TAttachmentView, TChatMessage, TChatSession, TModelChoice, TProviderStatus } from "./types";

/**
 * The chat page: a header, the conversation, the message box and the steps panel, put together
 * from hooks that each own one concern — the run (use-chat-run), approvals (use-approvals),
 * following new output (use-stick-to-bottom), display preferences (use-preferences) and telling a
 * background tab what happened (use-attention).
 */
export function ChatView({
  session: initialSession,
  initialMessages,
  providers,
  models,
  attachmentLimits,
  isAdmin,
}: {
  session: TChatSession;
  initialMessages: TChatMessage[];
  providers: TProviderStatus[];
  models: TModelChoice[];
  attachmentLimits: TAttachmentLimits;
  isAdmin: boolean;
}) {
  const router = useRouter();
  const sessionId = initialSession.id;
  const { sessions, refresh: refreshSessions, update: updateSessions } = useSessionList();
  const sidebar = useSidebar();
  const [preferences] = usePreferences();
  const stepsPanelId = useId();
  const [stepsOpen, setStepsOpen] = useState(false);
  const [stepsVersion, setStepsVersion] = useState(0);
  const [attachments, setAttachments] = useState<TDraftAttachment[]>([]);
  const [actionError, setActionError] = useState<string>();
  const [model, setModel] = useState(initialSession.model);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const stepsButton = useRef<HTMLButtonElement>(null);
  const { scroller, content, atBottom, onScroll, pin } = useStickToBottom();

  const listed = sessions.find((item) => item.id === sessionId);
  const title = listed?.title ?? initialSession.title;
  const signal = useAttention({ title, sessionId, notify: preferences.notify });

  const onRunEnd = useCallback(
    ({ isError, isAbort, messages }: TRunEnd) => {
      void refreshSessions();
      setStepsVersion((version) => version + 1);
      // After the first exchange the model names the chat (once; the server checks).
      if (!isError && !isAbort && messages.filter((message) => message.role === "user").length === 1 && messages.at(-1)?.role === "assistant") {
        void apiRequest(`/api/sessions/${encodeURIComponent(sessionId)}/title`, { method: "POST" })
          .then(() => refreshSessions())
          .catch(() => {});
      }
      if (!isAbort) signal(pendingApproval(messages, {}) ? "approval" : isError ? "failed" : "finished");
    },
    [refreshSessions, sessionId, signal],
  );

  const run = useChatRun({ session: initialSession, initialMessages, onRunEnd });

  // A decision was taken: the keyboard goes back to the message box, the page to the newest output.
  const onDecisionAccepted = useCallback(() => {
    textarea.current?.focus();
    pin();
  }, [pin]);
  const approvals = useApprovals({ sessionId, follow: run.follow, onAccepted: onDecisionAccepted });

  // The sidebar was rendered alongside this page and may predate what loading it found (a run that
  // turned out to be interrupted, a title that just changed).
  useEffect(() => {
    if (listed && listed.status !== initialSession.status) void refreshSessions();
    // Only on arrival: later changes are refreshed when runs end.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A new chat is for typing: the message box gets the keyboard (not on touch screens, where that
  // would pop up the on-screen keyboard over the page).
  useEffect(() => {
    if (!initialMessages.length && window.matchMedia("(pointer: fine)").matches) textarea.current?.focus();
  }, [initialMessages.length]);

  // Esc stops a streaming reply (unless something on top, a dialog or a menu, takes it first).
  const { busy, stop } = run;
  useEffect(() => {
    if (!busy) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || sidebar.open || document.querySelector("dialog[open]")) return;
      event.preventDefault();
      void stop();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [busy, stop, sidebar.open]);

  // A message the server refused before running it comes back into the box (adjusted while
  // rendering, as React recommends for state that follows a changed value); its text goes back
  // through the box itself (ChatComposer), which keeps the text.
  const { returnedDraft } = run;
  const [seenDraft, setSeenDraft] = useState(returnedDraft);
  if (returnedDraft !== seenDraft) {
    setSeenDraft(returnedDraft);
    if (returnedDraft) {
      if (!attachments.length) {
        setAttachments(
          returnedDraft.attachments.map((file) => ({ id: `returned-${file.path}`, name: file.name, bytes: file.bytes, mediaType: file.mediaType, status: "stored", stored: file })),
        );
      }
    }
  }

  const pending = pendingApproval(run.messages, approvals.decisions);

  function onSend(input: string): boolean {
    if (run.busy) return false;
    const stored = attachments.flatMap((file) => (file.status === "stored" && file.stored ? [file.stored] : []));
    if (!input.trim() && !stored.length) return false;
    // Sending while an approval waits declines it (the server records that, with the message as the reason).
    if (pending) approvals.declineForMessage(pending);
    setActionError(undefined);
    if (!input.trim().startsWith("/")) updateSessions((list) => list.map((item) => (item.id === sessionId ? { ...item, status: "running" } : item)));
    pin();
    run.send(input, stored);
    setAttachments([]);
    return true;
  }

  const lastUser = run.messages.findLast((message) => message.role === "user");

  // Callbacks of the run's own stable ones (not of `run`, a new object each render), so the
  // memoized messages are not drawn again while a reply streams in below them.
  const { resendFrom, resume: resumeRun } = run;
  const resend = useCallback(
    async (message: TChatMessage, text: string, files: TAttachmentView[]) => {
      setActionError(undefined);
      pin();
      await resendFrom(message, text, files);
    },
    [pin, resendFrom],
  );

  const regenerate = useCallback(() => {
    if (!lastUser) return;
    resend(lastUser, messageText(lastUser), messageAttachments(lastUser)).catch((caught: unknown) => setActionError(errorMessage(caught)));
  }, [lastUser, resend]);

  const resume = useCallback(() => {
    setActionError(undefined);
    pin();
    resumeRun().catch((caught: unknown) => setActionError(errorMessage(caught)));
  }, [pin, resumeRun]);

  const configured = providers.some((provider) => provider.configured);
  // Which model answered last (a fallback provider may have stepped in for the chosen one).
  const lastReply = run.messages.findLast((message) => message.role === "assistant" && message.metadata?.model);
  const lastProvider = lastReply?.metadata?.provider ?? run.session.lastProvider;
  const lastModelName = lastReply?.metadata?.model ?? run.session.lastModel;
  const lastModel = lastProvider && lastModelName ? `${lastProvider} · ${lastModelName}` : undefined;
  const chatError = run.error ? describeChatError(run.error) : undefined;
  const liveRunError = chatError && !chatError.http ? chatError : undefined;
  const canRetry = !run.busy && lastUser !== undefined && Boolean(run.stepKeyOf(lastUser));
  const onResume = run.session.interrupted && !run.busy ? resume : undefined;
  const onRetry = canRetry && !liveRunError ? regenerate : undefined;
  const partContext = useMemo(
    () => ({
      decisions: approvals.decisions,
      deciding: approvals.deciding,
      busy: run.busy,
      showStepIds: preferences.showStepIds,
      onDecide: approvals.decide,
      onResume,
      onRetry,
    }),
    [approvals.decisions, approvals.deciding, approvals.decide, run.busy, preferences.showStepIds, onResume, onRetry],
  );

  return (
    <div className="flex h-dvh min-h-0">
      <div className="flex min-w-0 flex-1 flex-col">
        <ChatHeader
          session={run.session}
          title={title}
          stepsOpen={stepsOpen}
          stepsPanelId={stepsPanelId}
          stepsButton={stepsButton}
          onToggleSteps={() => setStepsOpen((open) => !open)}
        />

        <div className="relative min-h-0 flex-1">
          <div ref={scroller} onScroll={onScroll} className="h-full overflow-y-auto" data-testid="message-scroller">
            <div ref={content} className="mx-auto max-w-3xl space-y-6 px-4 py-6 sm:px-6">
              <h2 className="sr-only">Messages</h2>
              {run.messages.length === 0 && !run.busy ? (
                <div className="py-16 text-center">
                  <p className="text-lg font-medium text-neutral-900 dark:text-neutral-100">What can I help with?</p>
                  <p className="mt-2 text-sm text-neutral-500 dark:text-neutral-400">
                    Ask anything, attach files, or type <code className="font-mono">/</code> for commands. The agent can use tools; every step is kept, so you can
                    roll back or fork later.
                  </p>
                </div>
              ) : null}
              <MessageList
                messages={run.messages}
                busy={run.busy}
                stepKeyOf={run.stepKeyOf}
                onEdit={resend}
                onRegenerate={regenerate}
                context={partContext}
              />
              {liveRunError ? (
                <Notice
                  tone="error"
                  testId="run-error"
                  action={
                    canRetry ? (
                      <Button size="sm" variant="secondary" onClick={regenerate}>
                        Retry
                      </Button>
                    ) : null
                  }
                >
                  {liveRunError.message}
                </Notice>
              ) : null}
            </div>
          </div>
          {!atBottom ? (
            <button
              type="button"
              onClick={() => pin(true)}
              className="absolute bottom-3 left-1/2 inline-flex h-8 -translate-x-1/2 items-center gap-1.5 rounded-full border border-neutral-200 bg-white px-3 text-xs font-medium text-neutral-700 shadow-md hover:bg-neutral-50 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-200 dark:hover:bg-neutral-800"
            >
              <JumpDownIcon size="sm" />
              Jump to latest
            </button>
          ) : null}
        </div>

        <div className="shrink-0 px-4 pt-2 pb-3 sm:px-6 sm:pb-4">
          <div className="mx-auto max-w-3xl space-y-2">
            {chatError?.http ? <DismissibleAlert tone="error" message={chatError.message} onDismiss={run.clearError} /> : null}
            {actionError ? <DismissibleAlert tone="error" message={actionError} onDismiss={() => setActionError(undefined)} /> : null}
            {approvals.error ? <DismissibleAlert tone="error" message={approvals.error} onDismiss={approvals.clearError} /> : null}
            {run.notice ? <DismissibleAlert tone="info" message={run.notice} onDismiss={() => run.setNotice(undefined)} /> : null}
            <ChatComposer
              sessionId={sessionId}
              returnedDraft={returnedDraft}
              attachments={attachments}
              onAttachmentsChange={setAttachments}
              limits={attachmentLimits}
              onSend={onSend}
              onStop={() => void run.stop()}
              busy={run.busy}
              stopping={run.stopping}
              disabled={!configured}
              placeholder={pending ? "Or tell xclaw what to do instead (this declines the action above)…" : "Message xclaw…"}
              textareaRef={textarea}
              notice={configured ? null : <NoProviderNotice isAdmin={isAdmin} />}
              footer={
                <span className="flex flex-wrap items-center gap-2">
                  {lastModel ? (
                    <span data-testid="model-label" className="font-mono" title="Provider and model of the latest reply">
                      {lastModel}
                    </span>
                  ) : null}
                  <ModelPicker
                    sessionId={sessionId}
                    choices={models}
                    value={model}
                    disabled={run.busy}
                    onChanged={setModel}
                  />
                </span>
              }
            />
            <p aria-live="polite" className="sr-only">
              {run.status === "submitted" ? "Sending…" : run.status === "streaming" ? "xclaw is replying…" : ""}
            </p>
          </div>
        </div>
      </div>

      <StepsPanel
        id={stepsPanelId}
        sessionId={sessionId}
        open={stepsOpen}
        version={stepsVersion}
        busy={run.busy}
        onClose={() => {
          setStepsOpen(false);
          stepsButton.current?.focus();
        }}
        onRolledBack={({ key, removed }) => {
          run.setNotice(`Rolled back: removed ${removed} step${removed === 1 ? "" : "s"} from ${key} on.`);
          void run.reloadMessages();
          void refreshSessions();
        }}
        onForked={(fork) => {
          void refreshSessions();
          router.push(`/chat/${fork.id}`);
        }}
      />
    </div>
  );
}

function DismissibleAlert({ tone, message, onDismiss }: { tone: "error" | "info"; message: string; onDismiss: () => void }) {
  return (
    <Alert tone={tone} className="flex items-start justify-between gap-3">
      <span className="min-w-0 break-words">{message}</span>
      <button
        type="button"
        onClick={onDismiss}
        className="shrink-0 rounded px-1 text-xs font-medium underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        Dismiss
      </button>
    </Alert>
  );
}

"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { apiRequest } from "@/components/api-request";
import { useSessionList } from "@/components/app-shell/session-list-context";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { describeChatError } from "./chat-error";
import { ChatInput } from "./chat-input";
import { AssistantMessage, Thinking, UserMessage } from "./message-view";
import { StepsPanel } from "./steps-panel";
import type { TApprovalDecision, TApprovalView, TChatDataParts, TChatMessage, TChatSession, TProviderInfo } from "./types";

/**
 * The server takes only the new text: history always comes from the database, never from the
 * browser. Reconnecting (resumeStream) uses GET /api/chat/<id>/stream, the transport's default.
 */
const transport = new DefaultChatTransport<TChatMessage>({
  api: "/api/chat",
  prepareSendMessagesRequest: ({ id, messages }) => {
    const last = messages.at(-1);
    const text = last?.role === "user" ? last.parts.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
    return { body: { sessionId: id, text } };
  },
});

type TChatDataPart = { [Name in keyof TChatDataParts]: { type: `data-${Name}`; id?: string; data: TChatDataParts[Name] } }[keyof TChatDataParts];

type TSessionResponse = { session: TChatSession; messages: TChatMessage[] };

const STEP_LABELS_KEY = "xclaw.chat.showStepLabels";
const STEP_LABELS_EVENT = "xclaw:step-labels";

function subscribeStepLabels(onChange: () => void) {
  window.addEventListener("storage", onChange);
  window.addEventListener(STEP_LABELS_EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(STEP_LABELS_EVENT, onChange);
  };
}

let memoryStepLabels: boolean | undefined;

function readStepLabels(): boolean {
  if (memoryStepLabels !== undefined) return memoryStepLabels;
  try {
    return window.localStorage.getItem(STEP_LABELS_KEY) !== "0";
  } catch {
    return true;
  }
}

function useStepLabels(): [boolean, (show: boolean) => void] {
  const show = useSyncExternalStore(subscribeStepLabels, readStepLabels, () => true);
  const set = useCallback((value: boolean) => {
    try {
      window.localStorage.setItem(STEP_LABELS_KEY, value ? "1" : "0");
    } catch {
      // Storage refused (private mode): the choice lasts until the page closes.
      memoryStepLabels = value;
    }
    window.dispatchEvent(new Event(STEP_LABELS_EVENT));
  }, []);
  return [show, set];
}

function textOf(message: TChatMessage | undefined): string {
  return message ? message.parts.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function ChatView({
  session: initialSession,
  initialMessages,
  providers,
  isAdmin,
}: {
  session: TChatSession;
  initialMessages: TChatMessage[];
  providers: TProviderInfo[];
  isAdmin: boolean;
}) {
  const router = useRouter();
  const { sessions, refresh: refreshSessions, update: updateSessions } = useSessionList();
  const stepsPanelId = useId();
  const [session, setSession] = useState(initialSession);
  const [input, setInput] = useState("");
  const [stepsOpen, setStepsOpen] = useState(false);
  const [stepsVersion, setStepsVersion] = useState(0);
  const [showStepLabels, setShowStepLabels] = useStepLabels();
  const [notice, setNotice] = useState<string>();
  const [stopping, setStopping] = useState(false);
  const [resumeRequested, setResumeRequested] = useState(false);
  const [userStepKeys, setUserStepKeys] = useState<Record<string, string>>({});
  const [atBottom, setAtBottom] = useState(true);
  const [decisions, setDecisions] = useState<Record<string, "approved" | "denied">>({});
  const [actionError, setActionError] = useState<string>();
  // Reconnecting to a run (on arrival, or after an approval decision): busy before the first chunk.
  const [following, setFollowing] = useState(initialSession.live);
  // A live run is replayed from its start by resumeStream, so the partial reply the server rendered
  // from the database is left out here; the full history is loaded again once the run ends.
  const [startingMessages] = useState(() =>
    initialSession.live && initialMessages.at(-1)?.role === "assistant" ? initialMessages.slice(0, -1) : initialMessages,
  );

  const pendingSessionAction = useRef<{ action: "reload" | "open"; sessionId: string } | undefined>(undefined);
  const reloadAfterRun = useRef(initialSession.live);
  const lastError = useRef<Error | undefined>(undefined);
  const resumed = useRef(false);
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const stepsButton = useRef<HTMLButtonElement>(null);
  const statusRef = useRef<string>("ready");
  const sendCount = useRef(0);
  const messagesRef = useRef<TChatMessage[]>(startingMessages);
  const setMessagesRef = useRef<(messages: TChatMessage[]) => void>(undefined);
  const resumeStreamRef = useRef<() => Promise<void>>(undefined);

  const reloadMessages = useCallback(async () => {
    const started = sendCount.current;
    try {
      const body = await apiRequest<TSessionResponse>(`/api/sessions/${encodeURIComponent(initialSession.id)}`);
      // A message sent meanwhile is newer than this answer: keep the screen as it is.
      if (sendCount.current !== started) return;
      setSession(body.session);
      setMessagesRef.current?.(body.messages);
      setUserStepKeys({});
    } catch {
      // Keep what is on screen; a page reload shows the stored history.
    }
  }, [initialSession.id]);

  const { messages, sendMessage, status, error, stop, resumeStream, setMessages, clearError } = useChat<TChatMessage>({
    id: initialSession.id,
    messages: startingMessages,
    transport,
    onData: (received) => {
      const part = received as TChatDataPart;
      if (part.type === "data-session") pendingSessionAction.current = part.data;
      if (part.type === "data-run" && part.data.userStep) {
        const userStep = part.data.userStep;
        const lastUser = messagesRef.current.findLast((message) => message.role === "user");
        if (lastUser) setUserStepKeys((keys) => ({ ...keys, [lastUser.id]: userStep }));
      }
    },
    onError: (caught) => {
      lastError.current = caught;
    },
    onFinish: ({ message, messages: all, isError }) => {
      void refreshSessions();
      setStepsVersion((version) => version + 1);
      const action = pendingSessionAction.current;
      pendingSessionAction.current = undefined;
      if (action?.action === "open" && action.sessionId !== initialSession.id) {
        router.push(`/chat/${action.sessionId}`);
        return;
      }
      if (action?.action === "reload") {
        const reply = textOf(message);
        if (reply) setNotice(reply);
        void reloadMessages();
        return;
      }
      if (reloadAfterRun.current) {
        reloadAfterRun.current = false;
        void reloadMessages();
        return;
      }
      // Refused before anything ran (409, 503, a bad command): the message was not stored, so it goes
      // back into the box instead of staying on screen as if it had been sent.
      if (isError && lastError.current && describeChatError(lastError.current).http) {
        const last = all.at(-1);
        if (last?.role === "user") {
          setMessages(all.slice(0, -1));
          setInput((current) => (current.trim() ? current : textOf(last)));
        }
      }
    },
  });

  useEffect(() => {
    messagesRef.current = messages;
    setMessagesRef.current = setMessages;
    resumeStreamRef.current = resumeStream;
    statusRef.current = status;
  });

  const busy = status === "submitted" || status === "streaming" || following;
  const title = sessions.find((item) => item.id === initialSession.id)?.title ?? session.title;

  // The sidebar was rendered alongside this page and may predate what loading it found (a run that
  // turned out to be interrupted, a title that just changed).
  const listedStatus = sessions.find((item) => item.id === initialSession.id)?.status;
  const listedStale = listedStatus !== undefined && listedStatus !== initialSession.status;
  useEffect(() => {
    if (listedStale) void refreshSessions();
    // Only on arrival: later changes are refreshed when runs end.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The first message names the chat; the tab title follows.
  useEffect(() => {
    document.title = `${title} · xclaw`;
  }, [title]);

  // A run that was in progress when the page loaded: follow it.
  useEffect(() => {
    if (!initialSession.live || resumed.current) return;
    resumed.current = true;
    void resumeStream().finally(() => setFollowing(false));
  }, [initialSession.live, resumeStream]);

  // Follow new output unless the reader scrolled up to read something earlier.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stickToBottom.current) element.scrollTop = element.scrollHeight;
  }, [messages, status]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const nearBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
    stickToBottom.current = nearBottom;
    setAtBottom(nearBottom);
  };

  const scrollToBottom = () => {
    stickToBottom.current = true;
    setAtBottom(true);
    scroller.current?.scrollTo({ top: scroller.current.scrollHeight, behavior: "smooth" });
  };

  function send(text: string) {
    const trimmed = text.trim();
    if (!trimmed || busy) return;
    setNotice(undefined);
    sendCount.current++;
    lastError.current = undefined;
    stickToBottom.current = true;
    setAtBottom(true);
    if (!trimmed.startsWith("/")) updateSessions((list) => list.map((item) => (item.id === initialSession.id ? { ...item, status: "running" } : item)));
    void sendMessage({ text: trimmed });
  }

  function onSend() {
    const text = input;
    if (!text.trim()) return;
    setInput("");
    send(text);
  }

  async function onStop() {
    setStopping(true);
    try {
      // The run on the server is detached from this response: only this request really stops it.
      await apiRequest(`/api/sessions/${encodeURIComponent(initialSession.id)}/stop`, { method: "POST" });
    } catch {
      // Stopping the local stream below still frees the input.
    }
    // Give the server a moment to end the stream itself, with its "Stopped by the user." notice.
    const deadline = Date.now() + 2500;
    while (Date.now() < deadline && (statusRef.current === "submitted" || statusRef.current === "streaming")) await wait(50);
    await stop();
    setStopping(false);
  }

  // Approve / Deny: the decision request starts the run's continuation on the server; this page then
  // follows that run like a reconnecting tab, and loads the stored history once it ends.
  const decide = useCallback(
    async (approval: TApprovalView, decision: TApprovalDecision) => {
      setActionError(undefined);
      setFollowing(true);
      setDecisions((current) => ({ ...current, [approval.approvalId]: decision.decision === "approve" ? "approved" : "denied" }));
      let response: Response;
      try {
        response = await fetch(`/api/sessions/${encodeURIComponent(initialSession.id)}/approvals/${encodeURIComponent(approval.approvalId)}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(decision),
          credentials: "same-origin",
        });
      } catch {
        response = new Response(JSON.stringify({ error: { message: "Could not reach the server. Check your connection and try again." } }), { status: 599 });
      }
      if (!response.ok) {
        setDecisions((current) => {
          const next = { ...current };
          delete next[approval.approvalId];
          return next;
        });
        setActionError(describeChatError(new Error(await response.text())).message);
        setFollowing(false);
        return;
      }
      // The run goes on without this response; the reconnect below replays it from its start.
      await response.body?.cancel().catch(() => {});
      reloadAfterRun.current = true;
      stickToBottom.current = true;
      await resumeStreamRef.current?.();
      setFollowing(false);
      if (reloadAfterRun.current) {
        reloadAfterRun.current = false;
        await reloadMessages();
      }
      void refreshSessions();
    },
    [initialSession.id, reloadMessages, refreshSessions],
  );

  function onResume() {
    setResumeRequested(true);
    send("/resume");
  }

  const lastWithModel = messages.findLast((message) => message.role === "assistant" && message.metadata?.provider);
  const firstConfigured = providers.find((provider) => provider.configured);
  const providerName = lastWithModel?.metadata?.provider ?? session.lastProvider ?? firstConfigured?.name;
  const modelName = lastWithModel?.metadata?.model ?? session.lastModel ?? firstConfigured?.model;
  const configured = providers.some((provider) => provider.configured);
  const chatError = error ? describeChatError(error) : undefined;
  const lastMessage = messages.at(-1);
  const waitingForReply = busy && lastMessage?.role !== "assistant";

  return (
    <div className="flex h-[calc(100dvh-3.5rem)] min-h-0 md:h-dvh">
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 shrink-0 items-center gap-2 border-b border-neutral-200 px-4 dark:border-neutral-800">
          <div className="min-w-0 flex-1">
            <h1 className="truncate text-sm font-semibold text-neutral-900 sm:text-base dark:text-neutral-50" title={title}>
              {title}
            </h1>
            {session.parentSessionId ? (
              <p className="truncate text-xs text-neutral-500 dark:text-neutral-400">
                {session.trigger === "agent" ? "Worker (sub-agent) of " : "Forked from "}
                <Link href={`/chat/${session.parentSessionId}`} className="underline underline-offset-2 hover:text-neutral-900 dark:hover:text-neutral-100">
                  {session.trigger === "agent" ? "the chat that delegated it" : "the original chat"}
                </Link>
                {session.forkedFromStep ? ` at ${session.forkedFromStep}` : ""}
              </p>
            ) : null}
          </div>
          <Button
            variant="ghost"
            size="sm"
            aria-pressed={showStepLabels}
            onClick={() => setShowStepLabels(!showStepLabels)}
            title="Show or hide the step ids (s0003) in the conversation"
          >
            Step ids
          </Button>
          <Button
            ref={stepsButton}
            variant={stepsOpen ? "primary" : "secondary"}
            size="sm"
            aria-expanded={stepsOpen}
            aria-controls={stepsPanelId}
            onClick={() => setStepsOpen((open) => !open)}
          >
            <StepsIcon />
            Steps
          </Button>
        </header>

        <div className="relative min-h-0 flex-1">
          <div ref={scroller} onScroll={onScroll} className="h-full overflow-y-auto" data-testid="message-scroller">
            <div className="mx-auto max-w-3xl space-y-6 px-4 py-6 sm:px-6">
              <h2 className="sr-only">Messages</h2>
              {messages.length === 0 && !busy ? (
                <div className="py-16 text-center">
                  <p className="text-lg font-medium text-neutral-900 dark:text-neutral-100">What can I help with?</p>
                  <p className="mt-2 text-sm text-neutral-500 dark:text-neutral-400">
                    Ask anything. The agent can use tools; each step is kept so you can roll back or fork later. Type{" "}
                    <code className="font-mono">/help</code> for commands.
                  </p>
                </div>
              ) : null}
              {messages.map((message, index) =>
                message.role === "user" ? (
                  <UserMessage
                    key={message.id}
                    message={message}
                    stepKey={userStepKeys[message.id] ?? message.metadata?.step}
                    showStepLabels={showStepLabels}
                  />
                ) : message.role === "assistant" ? (
                  <AssistantMessage
                    key={message.id}
                    message={message}
                    active={busy && index === messages.length - 1}
                    showStepLabels={showStepLabels}
                    decisions={decisions}
                    busy={busy}
                    onDecide={decide}
                  />
                ) : null,
              )}
              {waitingForReply ? <Thinking /> : null}
            </div>
          </div>
          {!atBottom ? (
            <button
              type="button"
              onClick={scrollToBottom}
              className="absolute bottom-3 left-1/2 inline-flex h-8 -translate-x-1/2 items-center gap-1.5 rounded-full border border-neutral-200 bg-white px-3 text-xs font-medium text-neutral-700 shadow-md hover:bg-neutral-50 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-200 dark:hover:bg-neutral-800"
            >
              <svg viewBox="0 0 24 24" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
                <path d="M12 5v14M6 13l6 6 6-6" />
              </svg>
              Jump to latest
            </button>
          ) : null}
        </div>

        <div className="shrink-0 px-4 pt-2 pb-3 sm:px-6 sm:pb-4">
          <div className="mx-auto max-w-3xl space-y-2">
            {!configured ? (
              <Alert tone="warning" role="note">
                {isAdmin
                  ? "No model provider is configured. Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL in the server's environment and restart xclaw; the README explains each setting."
                  : "No model provider is configured. Ask an administrator to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL."}
              </Alert>
            ) : null}
            {session.interrupted && !resumeRequested ? (
              <Alert tone="warning" role="note" className="flex flex-wrap items-center justify-between gap-2">
                <span>
                  <strong className="font-semibold">This run was interrupted.</strong> Resume continues where it stopped; tool calls that were cut off are not
                  run again.
                </span>
                <Button size="sm" onClick={onResume} disabled={busy}>
                  Resume
                </Button>
              </Alert>
            ) : null}
            {chatError ? (
              <div role="alert" className="flex items-start justify-between gap-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/50 dark:text-red-200">
                <p className="min-w-0 break-words">{chatError.message}</p>
                <button
                  type="button"
                  onClick={clearError}
                  className="shrink-0 rounded px-1 text-xs font-medium underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-blue-600"
                >
                  Dismiss
                </button>
              </div>
            ) : null}
            {actionError ? (
              <Alert tone="error" className="flex items-start justify-between gap-3">
                <span className="min-w-0 break-words">{actionError}</span>
                <button
                  type="button"
                  onClick={() => setActionError(undefined)}
                  className="shrink-0 rounded px-1 text-xs font-medium underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-blue-600"
                >
                  Dismiss
                </button>
              </Alert>
            ) : null}
            {notice ? (
              <Alert tone="info" className="flex items-start justify-between gap-3">
                <span className="min-w-0 break-words">{notice}</span>
                <button
                  type="button"
                  onClick={() => setNotice(undefined)}
                  className="shrink-0 rounded px-1 text-xs font-medium underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-blue-600"
                >
                  Dismiss
                </button>
              </Alert>
            ) : null}
            <ChatInput
              value={input}
              onChange={setInput}
              onSend={onSend}
              onStop={() => void onStop()}
              busy={busy}
              stopping={stopping}
              footer={
                providerName && modelName ? (
                  <span data-testid="model-label" className="font-mono" title="Provider and model of the latest reply">
                    {providerName} · {modelName}
                  </span>
                ) : null
              }
            />
            <p aria-live="polite" className="sr-only">
              {status === "submitted" ? "Sending…" : status === "streaming" ? "xclaw is replying…" : ""}
            </p>
          </div>
        </div>
      </div>

      <StepsPanel
        id={stepsPanelId}
        sessionId={initialSession.id}
        open={stepsOpen}
        version={stepsVersion}
        busy={busy}
        onClose={() => {
          setStepsOpen(false);
          stepsButton.current?.focus();
        }}
        onRolledBack={({ key, removed }) => {
          setNotice(`Rolled back: removed ${removed} step${removed === 1 ? "" : "s"} from ${key} on.`);
          void reloadMessages();
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

function StepsIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
      <path d="M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01" />
    </svg>
  );
}

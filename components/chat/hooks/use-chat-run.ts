"use client";

import { useChat } from "@ai-sdk/react";
import { generateId, type DataUIPart } from "ai";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { describeChatError } from "../chat-error";
import { chatTransport, followMetadata, type TFollowRequest } from "../chat-transport";
import { messageAttachments, messageText } from "../message-model";
import type { TAttachmentView, TChatDataParts, TChatMessage, TChatSession, TSessionAction } from "../types";

/**
 * One chat's conversation with the server: sending, following runs, and reading the stored
 * history again when a run ends.
 *
 * History always comes from the database, never from the browser (chat-transport.ts). A run is
 * detached from the request that started it, so this page can follow it again at any time: on
 * arrival while a run is live (GET /api/chat/:id/stream replays it from its start), and after an
 * approval decision or Resume, whose own answer streams the run they continue.
 */
type TSessionResponse = { session: TChatSession; messages: TChatMessage[] };

/** What the page hears when a run it followed has ended. */
export type TRunEnd = { isError: boolean; isAbort: boolean; messages: TChatMessage[] };

/** Text and files of a message the server refused before running it, for the message box. */
export type TReturnedDraft = { text: string; attachments: TAttachmentView[] };

/** A request whose answer streams the run to follow (chat-transport.ts); a refusal is thrown by follow(). */
export type TFollowedRequest = Omit<TFollowRequest, "onRefused">;

// Updates from a fast stream are applied at most this often: a reply arriving in one burst (a
// reload mid-reply replays the run) becomes a few renders instead of thousands.
const THROTTLE_MS = 50;
const STOP_GRACE_MS = 2_500;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function useChatRun({ session: initialSession, initialMessages, onRunEnd }: { session: TChatSession; initialMessages: TChatMessage[]; onRunEnd: (end: TRunEnd) => void }) {
  const router = useRouter();
  const sessionId = initialSession.id;
  const [session, setSession] = useState(initialSession);
  // Following a run (on arrival, after a decision, after Resume): busy before its first chunk.
  const [following, setFollowing] = useState(initialSession.live);
  const [userStepKeys, setUserStepKeys] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string>();
  const [returnedDraft, setReturnedDraft] = useState<TReturnedDraft>();
  const [stopping, setStopping] = useState(false);
  // A live run is replayed from its start, so the partial reply the server rendered from the
  // database is left out here; the full history is loaded again once the run ends.
  const [startingMessages] = useState(() =>
    initialSession.live && initialMessages.at(-1)?.role === "assistant" ? initialMessages.slice(0, -1) : initialMessages,
  );

  const pendingAction = useRef<TSessionAction | undefined>(undefined);
  const reloadAfterRun = useRef(initialSession.live);
  const lastError = useRef<Error | undefined>(undefined);
  const sendCount = useRef(0);
  const latest = useRef({
    messages: startingMessages,
    setMessages: (_messages: TChatMessage[]) => {},
    resumeStream: async (_options?: { metadata?: unknown }) => {},
    status: "ready" as string,
    onRunEnd,
  });
  // The id of the message this page sent last, until the server says which step stored it.
  const sentMessageId = useRef<string | undefined>(undefined);
  // Following a request's answer (a decision, Resume), and whether that answer was a run at all.
  const followedRequest = useRef<{ ran: boolean } | undefined>(undefined);

  const reloadMessages = useCallback(async () => {
    const started = sendCount.current;
    try {
      const body = await apiRequest<TSessionResponse>(`/api/sessions/${encodeURIComponent(sessionId)}`);
      // A message sent meanwhile is newer than this answer: keep the screen as it is.
      if (sendCount.current !== started) return;
      setSession(body.session);
      latest.current.setMessages(body.messages);
      setUserStepKeys({});
    } catch {
      // Keep what is on screen; a page reload shows the stored history.
    }
  }, [sessionId]);

  const chat = useChat<TChatMessage>({
    id: sessionId,
    messages: startingMessages,
    transport: chatTransport,
    experimental_throttle: THROTTLE_MS,
    onData: (part: DataUIPart<TChatDataParts>) => {
      if (part.type === "data-session") pendingAction.current = part.data;
      if (part.type === "data-run" && followedRequest.current) followedRequest.current.ran = true;
      // The run's first event names the step that stored the message this page just sent.
      if (part.type === "data-run" && part.data.userStep && sentMessageId.current) {
        const userStep = part.data.userStep;
        const messageId = sentMessageId.current;
        sentMessageId.current = undefined;
        setUserStepKeys((keys) => ({ ...keys, [messageId]: userStep }));
      }
    },
    onError: (caught) => {
      lastError.current = caught;
    },
    onFinish: ({ message, messages, isError, isAbort }) => {
      sentMessageId.current = undefined;
      const action = pendingAction.current;
      pendingAction.current = undefined;
      if (action?.action === "open" && action.sessionId !== sessionId) {
        router.push(`/chat/${action.sessionId}`);
        return;
      }
      if (action?.action === "reload") {
        const reply = messageText(message);
        if (reply) setNotice(reply);
        void reloadMessages();
      } else if (reloadAfterRun.current) {
        reloadAfterRun.current = false;
        // A request answered with a short reply instead of a run ("This action was already
        // approved"): the reply is said above the message box, as a command's is.
        const reply = followedRequest.current && !followedRequest.current.ran && !isError ? messageText(message) : "";
        if (reply) setNotice(reply);
        void reloadMessages();
      } else if (isError && lastError.current && describeChatError(lastError.current).http) {
        // Refused before anything ran (409, 429, 503, a bad command): the message was not stored,
        // so it goes back into the box instead of staying on screen as if it had been sent.
        const last = messages.at(-1);
        if (last?.role === "user") {
          latest.current.setMessages(messages.slice(0, -1));
          setReturnedDraft({ text: messageText(last), attachments: messageAttachments(last) });
        }
      }
      latest.current.onRunEnd({ isError, isAbort, messages });
    },
  });

  useEffect(() => {
    latest.current = { messages: chat.messages, setMessages: chat.setMessages, resumeStream: chat.resumeStream, status: chat.status, onRunEnd };
  });

  /**
   * Follows a run to its end, then shows the stored history: the session's live run (if any), or
   * the one `request` starts, read from that request's own answer. A refused request throws.
   */
  const follow = useCallback(
    async (request?: TFollowedRequest) => {
      let refused: { error: unknown } | undefined;
      setFollowing(true);
      reloadAfterRun.current = true;
      followedRequest.current = request ? { ran: false } : undefined;
      try {
        await latest.current.resumeStream(request ? { metadata: followMetadata({ ...request, onRefused: (error) => (refused = { error }) }) } : undefined);
      } finally {
        followedRequest.current = undefined;
        setFollowing(false);
      }
      if (refused) {
        reloadAfterRun.current = false;
        throw refused.error;
      }
      // Nothing was running any more (204): the run ended before we asked; read what it left.
      if (reloadAfterRun.current) {
        reloadAfterRun.current = false;
        await reloadMessages();
      }
    },
    [reloadMessages],
  );

  // A run that was in progress when the page loaded: follow it.
  const followedOnArrival = useRef(false);
  useEffect(() => {
    if (!initialSession.live || followedOnArrival.current) return;
    followedOnArrival.current = true;
    void follow();
  }, [initialSession.live, follow]);

  const busy = chat.status === "submitted" || chat.status === "streaming" || following;

  const send = useCallback(
    (text: string, attachments: TAttachmentView[] = []) => {
      const trimmed = text.trim();
      if (!trimmed && !attachments.length) return;
      setNotice(undefined);
      setReturnedDraft(undefined);
      sendCount.current++;
      lastError.current = undefined;
      const id = generateId();
      sentMessageId.current = id;
      void chat.sendMessage({ id, role: "user", parts: [{ type: "text", text: trimmed }, ...attachments.map((data) => ({ type: "data-attachment" as const, data }))] });
    },
    [chat],
  );

  /** The step key of a person's message: known once the server has stored it. */
  const stepKeyOf = useCallback((message: TChatMessage) => userStepKeys[message.id] ?? message.metadata?.step, [userStepKeys]);

  /**
   * Edit and send again, regenerate, retry: the message and everything after it are rolled back
   * (as the steps panel's Rollback does), then the new text is sent. Fork first to keep them.
   */
  const resendFrom = useCallback(
    async (message: TChatMessage, text: string, attachments: TAttachmentView[]) => {
      const key = stepKeyOf(message);
      if (!key) throw new Error("This message is not stored yet. Wait a moment and try again.");
      await apiRequest(`/api/sessions/${encodeURIComponent(sessionId)}/rollback`, { method: "POST", body: { stepId: key } });
      const index = latest.current.messages.findIndex((candidate) => candidate.id === message.id);
      chat.setMessages(index >= 0 ? latest.current.messages.slice(0, index) : latest.current.messages);
      chat.clearError();
      send(text, attachments);
    },
    [chat, send, sessionId, stepKeyOf],
  );

  const stop = useCallback(async () => {
    setStopping(true);
    try {
      // The run on the server is detached from this response: only this request really stops it.
      await apiRequest(`/api/sessions/${encodeURIComponent(sessionId)}/stop`, { method: "POST" });
    } catch {
      // Stopping the local stream below still frees the input.
    }
    // Give the server a moment to end the stream itself, with its "Stopped by the user." notice.
    const deadline = Date.now() + STOP_GRACE_MS;
    while (Date.now() < deadline && (latest.current.status === "submitted" || latest.current.status === "streaming")) await wait(50);
    await chat.stop();
    setStopping(false);
  }, [chat, sessionId]);

  /** Continues an interrupted run (from any process) and follows it, from the same request. */
  const resume = useCallback(async () => {
    sendCount.current++;
    await follow({ path: `/api/sessions/${encodeURIComponent(sessionId)}/resume`, onAccepted: () => setSession((current) => ({ ...current, interrupted: false })) });
  }, [follow, sessionId]);

  return {
    session,
    setSession,
    messages: chat.messages,
    status: chat.status,
    error: chat.error,
    clearError: chat.clearError,
    busy,
    stopping,
    notice,
    setNotice,
    returnedDraft,
    send,
    stop,
    follow,
    resume,
    resendFrom,
    stepKeyOf,
    reloadMessages,
  };
}

import { DefaultChatTransport, type UIMessageChunk } from "ai";
import { apiStream } from "@/components/api-request";
import { messageAttachments, messageText } from "./message-model";
import type { TChatMessage } from "./types";

/**
 * How the chat page's useChat reaches the server. A message goes to POST /api/chat, whose answer
 * streams the run; the server takes only the new text (and attached files), never the history.
 * Following a run (useChat's resumeStream) reads GET /api/chat/:id/stream, which replays the
 * session's live run from its start — unless the follow names a request that answers with the run
 * itself (an approval decision, Resume): then that request's own stream is what the page renders,
 * one request for one click. A refused request follows nothing and is handed back through
 * `onRefused`, so the refusal goes to the button that sent it instead of becoming the chat's error.
 */
export type TFollowRequest = {
  path: string;
  body?: unknown;
  /** The server took the request: its stream follows. */
  onAccepted?: () => void;
  onRefused: (error: unknown) => void;
};

type TReconnectOptions = Parameters<DefaultChatTransport<TChatMessage>["reconnectToStream"]>[0];

function followRequestOf(metadata: unknown): TFollowRequest | undefined {
  const request = (metadata as { follow?: TFollowRequest } | undefined)?.follow;
  return request && typeof request.path === "string" ? request : undefined;
}

/** The metadata for useChat's resumeStream that makes it follow `request`. */
export function followMetadata(request: TFollowRequest): { follow: TFollowRequest } {
  return { follow: request };
}

class ChatRunTransport extends DefaultChatTransport<TChatMessage> {
  constructor() {
    super({
      api: "/api/chat",
      prepareSendMessagesRequest: ({ id, messages }) => {
        const last = messages.at(-1);
        const attachments = last?.role === "user" ? messageAttachments(last).map((file) => file.path) : [];
        return { body: { sessionId: id, text: last?.role === "user" ? messageText(last) : "", ...(attachments.length ? { attachments } : {}) } };
      },
    });
  }

  override async reconnectToStream(options: TReconnectOptions): Promise<ReadableStream<UIMessageChunk> | null> {
    const request = followRequestOf(options.metadata);
    if (!request) return super.reconnectToStream(options);
    let body: ReadableStream<Uint8Array> | null;
    try {
      body = await apiStream(request.path, { body: request.body, signal: options.abortSignal });
    } catch (error) {
      // Stopped by the page (useChat's stop): useChat treats an abort as the end of following.
      if (options.abortSignal?.aborted) throw error;
      request.onRefused(error);
      return null;
    }
    request.onAccepted?.();
    return body ? this.processResponseStream(body) : null;
  }
}

/** One transport serves every chat (it keeps no state of its own). */
export const chatTransport = new ChatRunTransport();

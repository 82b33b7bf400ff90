import { parseJsonEventStream, uiMessageChunkSchema } from "ai";
import type { UIMessageChunk } from "ai";
import { AppError } from "../../lib/errors";
import type { TChatDataParts, TChatMetadata } from "../../lib/wire/chat";

/**
 * The chat's AI SDK UI message stream (server-sent events, lib/channels/web/ui-stream.ts) read
 * with the `ai` package's own parser: `parseJsonEventStream` (eventsource-parser underneath) and
 * `uiMessageChunkSchema`, the pair the SDK's chat transport uses. So the client follows the
 * protocol as the SDK defines it, and a part it does not know is refused, not misread.
 */
export type TChatChunk = UIMessageChunk<TChatMetadata, TChatDataParts>;

export async function* readChatStream(response: Response): AsyncIterable<TChatChunk> {
  if (!response.body) return;
  const reader = parseJsonEventStream({ stream: response.body, schema: uiMessageChunkSchema }).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (!value.success) throw new AppError("internal", `The server sent a stream part this client cannot read (${value.error.message}). Is the client older than the server?`);
      // The schema checks each chunk's shape. The data parts' contents are typed by lib/wire/chat.ts
      // and trusted as the chat page trusts them (useChat checks none either); the approval
      // preview, which a tool fills in, is read field by field (approval-view.ts).
      yield value.value as TChatChunk;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

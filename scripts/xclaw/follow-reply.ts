import { isAppError } from "../../lib/errors";
import type { TApiClient } from "./api-client";
import { readChatStream } from "./chat-stream";
import { exitInterrupted, whileInterruptible } from "./interrupts";
import type { TReplyOutcome, TReplyPrinter } from "./reply-printer";

/**
 * Sends one request whose answer is a reply stream (a message, an approval decision, following a
 * live run) and shows the reply to its end. Ctrl-C while it streams does what the web's Stop
 * button does — POST /api/sessions/:id/stop, which stops the run in whichever server process runs
 * it — and keeps reading, so the stop shows as the server reports it; a second Ctrl-C quits at once.
 * Returns undefined when there was nothing to follow.
 */
export async function followReply(options: {
  client: TApiClient;
  sessionId: string;
  printer: TReplyPrinter;
  request: (signal: AbortSignal) => Promise<Response | undefined>;
}): Promise<TReplyOutcome | undefined> {
  const { client, sessionId, printer } = options;
  const controller = new AbortController();
  let stopping = false;
  const onInterrupt = () => {
    if (stopping) {
      controller.abort();
      exitInterrupted();
    }
    stopping = true;
    printer.note("Stopping the run… (Ctrl-C again to quit)");
    client.postJson<{ stopped: boolean }>(`/api/sessions/${encodeURIComponent(sessionId)}/stop`).then(
      ({ stopped }) => (stopped ? undefined : printer.note("Nothing was running.")),
      (error: unknown) => printer.note(`Could not stop the run: ${isAppError(error) ? error.message : String(error)}`),
    );
  };
  return whileInterruptible(onInterrupt, async () => {
    const response = await options.request(controller.signal);
    if (!response) return undefined;
    for await (const chunk of readChatStream(response)) printer.handle(chunk);
    return printer.outcome();
  });
}

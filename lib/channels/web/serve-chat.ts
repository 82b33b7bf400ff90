import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeHeadersOf, sendWebResponse, webRequestFrom } from "@/lib/http/node-exchange";
import { route } from "@/lib/http/route";
import type { TStartedRun } from "@/lib/runs/start-run";
import { receiveChatMessage } from "./chat-request";
import { pushRunEvents, STREAM_HEADERS } from "./ui-stream";
import { messageResultResponse } from "./web-channel";

/**
 * POST /api/chat as a Node route (lib/http/server-hook.ts), answered before Next.js in a production
 * server. The steps are the route handler's (the same wrapper, authentication, body rules and
 * message handling); only the run's stream differs: its events are written straight to the Node
 * response, with no web Request, Response or ReadableStream kept open for as long as the run takes.
 */
const runsOfAnswers = new WeakMap<Response, TStartedRun>();
const NO_PARAMS = { params: Promise.resolve({}) };

const handleChat = route(async (request) => {
  const result = await receiveChatMessage(request);
  if (result.kind !== "run") return messageResultResponse(result);
  // The wrapper still sets the answer's headers (request id, logging); the stream is written below.
  const answer = new Response(null, { headers: STREAM_HEADERS });
  runsOfAnswers.set(answer, result.run);
  return answer;
});

export async function serveChat(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const response = await handleChat(webRequestFrom(incoming), NO_PARAMS);
  const run = runsOfAnswers.get(response);
  if (!run) return sendWebResponse(outgoing, response);
  outgoing.writeHead(response.status, nodeHeadersOf(response));
  // The client may have left while the run was being started: the run goes on without it.
  if (outgoing.destroyed) return;
  const stop = pushRunEvents((onEvents) => run.watch(onEvents), {
    write: (text) => {
      if (!outgoing.writableEnded) outgoing.write(text);
    },
    close: () => {
      if (!outgoing.writableEnded) outgoing.end();
    },
  });
  // The browser went away: stop watching. The run itself goes on (lib/runs/start-run.ts).
  outgoing.on("close", stop);
}

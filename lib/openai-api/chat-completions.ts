import { readJson } from "@/lib/http/route";
import { startAgentCompletion } from "./agent-completion";
import { runInputText, ZChatCompletionRequest } from "./chat-request";
import { completionJson, completionStream, SESSION_HEADER } from "./completion-response";
import { resolveModel } from "./models";
import { requireApiToken } from "./openai-errors";

/**
 * POST /v1/chat/completions: one request is one run of an xclaw agent (trigger API) in a session,
 * through the same run core as the web chat and the channels (lib/runs/start-run.ts). Everything
 * that can be refused (token, body, model, session, a busy session, the limits on runs) is refused
 * before the answer starts, as an OpenAI-shaped error; after that the run is followed, and a
 * client that goes away stops only its own reading, never the run.
 */
export async function chatCompletion(request: Request): Promise<Response> {
  const { user } = await requireApiToken(request);
  const body = await readJson(request, ZChatCompletionRequest);
  const choice = await resolveModel(user.id, body.model);
  const requested = request.headers.get(SESSION_HEADER)?.trim() || body.user?.trim() || undefined;
  const { text, lastUserText } = runInputText(body.messages, { continuing: !!requested });
  const completion = await startAgentCompletion({ user, agent: choice.agent, sessionId: requested, text, lastUserText, requestUrl: request.url, signal: request.signal });
  const meta = { id: completion.id, model: choice.model, sessionId: completion.sessionId, created: Math.floor(Date.now() / 1000) };
  return body.stream ? completionStream(meta, completion.events, { includeUsage: !!body.stream_options?.include_usage }) : completionJson(meta, completion.events);
}

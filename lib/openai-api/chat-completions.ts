import { randomUUID } from "node:crypto";
import { publicOrigin } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { readJson } from "@/lib/http/route";
import { startRun } from "@/lib/runs/start-run";
import { sessionForRequest, waitedApprovalOf } from "./api-sessions";
import { runInputText, ZChatCompletionRequest } from "./chat-request";
import { continueAfterApproval, recordWaitWhenPaused, runCompletion, type TCompletionEvent } from "./completion-events";
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
  const { session, created } = await sessionForRequest({ userId: user.id, sessionId: requested, agent: choice.agent, lastUserText });
  const link = `${publicOrigin() ?? new URL(request.url).origin}/chat/${session.id}`;
  const signal = request.signal;

  let events: AsyncIterable<TCompletionEvent>;
  let id = `chatcmpl-${randomUUID()}`;
  const waited = created ? undefined : await waitedApprovalOf({ userId: user.id, sessionId: session.id });
  if (waited) {
    events = continueAfterApproval({ userId: user.id, sessionId: session.id, waited, link, signal });
  } else {
    let run;
    try {
      run = await startRun({
        session: { id: session.id, userId: user.id },
        input: { kind: "message", text },
        trigger: "api",
        limits: user.instructions ? { instructions: user.instructions } : undefined,
      });
    } catch (error) {
      // Refused before anything ran (no provider, too many runs): no empty session is left behind.
      if (created) await db().chatSession.deleteMany({ where: { id: session.id, userId: user.id, nextSeq: 1 } });
      throw error;
    }
    id = `chatcmpl-${run.runId}`;
    events = runCompletion({ run, waitRecorded: recordWaitWhenPaused(run, user.id), link, signal });
  }
  const meta = { id, model: choice.model, sessionId: session.id, created: Math.floor(Date.now() / 1000) };
  return body.stream ? completionStream(meta, events, { includeUsage: !!body.stream_options?.include_usage }) : completionJson(meta, events);
}

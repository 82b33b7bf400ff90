import { randomUUID } from "node:crypto";
import { publicOrigin } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { startRun } from "@/lib/runs/start-run";
import { sessionForRequest, waitedApprovalOf } from "./api-sessions";
import { continueAfterApproval, recordWaitWhenPaused, runCompletion, type TCompletionEvent } from "./completion-events";

/**
 * One message from a program to an agent, whatever the protocol (the OpenAI API here, the MCP
 * server in lib/mcp-server): the session (continued or new), then either the rest of an answer an
 * approval held back or a new run (trigger API) through the run core. Everything that can be
 * refused is refused before it returns; the events are followed after.
 */
/** The session's page in the web chat, where its approvals are decided. */
export function sessionLink(sessionId: string, requestUrl: string): string {
  return `${publicOrigin() ?? new URL(requestUrl).origin}/chat/${sessionId}`;
}

export type TAgentCompletion = { id: string; sessionId: string; events: AsyncIterable<TCompletionEvent> };

export async function startAgentCompletion(options: {
  user: User;
  agent: string | null;
  /** The session to continue; a new one when absent. */
  sessionId: string | undefined;
  /** The run's input, and the new message alone (for a new session's title). */
  text: string;
  lastUserText: string;
  /** Where the request came in, for the link to an approval card when NEXTAUTH_URL is unset. */
  requestUrl: string;
  signal?: AbortSignal;
}): Promise<TAgentCompletion> {
  const { user, signal } = options;
  const { session, created } = await sessionForRequest({ userId: user.id, sessionId: options.sessionId, agent: options.agent, lastUserText: options.lastUserText });
  const link = sessionLink(session.id, options.requestUrl);
  const waited = created ? undefined : await waitedApprovalOf({ userId: user.id, sessionId: session.id });
  if (waited) return { id: `chatcmpl-${randomUUID()}`, sessionId: session.id, events: continueAfterApproval({ userId: user.id, sessionId: session.id, waited, link, signal }) };
  let run;
  try {
    run = await startRun({
      session: { id: session.id, userId: user.id },
      input: { kind: "message", text: options.text },
      trigger: "api",
      limits: user.instructions ? { instructions: user.instructions } : undefined,
    });
  } catch (error) {
    // Refused before anything ran (no provider, too many runs): no empty session is left behind.
    if (created) await db().chatSession.deleteMany({ where: { id: session.id, userId: user.id, nextSeq: 1 } });
    throw error;
  }
  return { id: `chatcmpl-${run.runId}`, sessionId: session.id, events: runCompletion({ run, waitRecorded: recordWaitWhenPaused(run, user.id), link, signal }) };
}

/** The whole answer as text, for protocols that do not stream it. */
export async function completionText(events: AsyncIterable<TCompletionEvent>): Promise<{ text: string; finished: boolean }> {
  let text = "";
  let finished = false;
  for await (const event of events) {
    if (event.type === "text") text += event.text;
    else if (event.type === "discard") text = text.slice(0, Math.max(0, text.length - event.characters));
    else finished = true;
  }
  return { text, finished };
}

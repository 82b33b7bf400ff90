import { z } from "zod";
import { listAgents } from "@/lib/agents/profiles";
import type { User } from "@/lib/db/generated/client";
import { isAppError } from "@/lib/errors";
import { ZMessageText } from "@/lib/runs/handle-message";
import { completionText, startAgentCompletion } from "@/lib/openai-api/agent-completion";
import { resolveModel, MAIN_MODEL } from "@/lib/openai-api/models";

/**
 * The MCP server's one tool: ask an xclaw agent. Each call is a run (trigger API) in a session,
 * through the same path as the OpenAI-compatible API (lib/openai-api/agent-completion.ts): a new
 * session unless `session_id` continues one, the agent's tools on the server under the approval
 * policy, and a call that needs approval answered with a link to its web card (the next call in
 * the session, after the decision, gets the rest).
 */
export const ASK_TOOL = "ask";

export const ZAskArguments = z.strictObject({
  message: ZMessageText,
  agent: z.string().trim().min(1).max(40).optional(),
  session_id: z.string().trim().min(1).max(100).optional(),
});

export async function askToolDefinition(userId: string) {
  const agents = await listAgents(userId);
  return {
    name: ASK_TOOL,
    title: "Ask an xclaw agent",
    description:
      "Send a message to an xclaw agent and get its answer. The agent works on the xclaw server with its own tools (files in the user's workspace, a sandboxed shell, a browser, memory); actions that need the user's approval pause the answer with a link to approve them in xclaw. Pass session_id from an earlier answer to continue that conversation.",
    inputSchema: {
      type: "object",
      properties: {
        message: { type: "string", description: "What to ask or tell the agent." },
        agent: {
          type: "string",
          description: `Which agent answers: omit for the main agent (every tool), or one of the agent profiles: ${agents.map((agent) => `${agent.name} (${agent.description})`).join("; ")}`,
          enum: agents.map((agent) => agent.name),
        },
        session_id: { type: "string", description: "Continue this xclaw session (from an earlier answer's session_id); omit to start a new one." },
      },
      required: ["message"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { answer: { type: "string" }, session_id: { type: "string" } },
      required: ["answer", "session_id"],
    },
  };
}

/** A refusal the caller can act on (unknown agent or session, a busy session, the run limits) is the tool's error result. */
export async function callAskTool(options: { user: User; arguments: z.infer<typeof ZAskArguments>; requestUrl: string; signal?: AbortSignal }) {
  const { user } = options;
  const input = options.arguments;
  try {
    const choice = await resolveModel(user.id, input.agent ? `${MAIN_MODEL}:${input.agent}` : MAIN_MODEL);
    const completion = await startAgentCompletion({
      user,
      agent: choice.agent,
      sessionId: input.session_id,
      text: input.message,
      lastUserText: input.message,
      requestUrl: options.requestUrl,
      signal: options.signal,
    });
    const { text } = await completionText(completion.events);
    return {
      content: [{ type: "text", text: `${text}\n\n(xclaw session: ${completion.sessionId})` }],
      structuredContent: { answer: text, session_id: completion.sessionId },
      isError: false,
    };
  } catch (error) {
    if (!isAppError(error) || error.status >= 500) throw error;
    return { content: [{ type: "text", text: error.message }], isError: true };
  }
}

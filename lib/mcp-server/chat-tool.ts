import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { listAgents } from "@/lib/agents/profiles";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { completionText, sessionLink, startAgentCompletion } from "@/lib/openai-api/agent-completion";
import { MAIN_MODEL, resolveModel } from "@/lib/openai-api/models";
import { ZMessageText } from "@/lib/runs/handle-message";
import { toolCall, toolData } from "./tool-results";

/**
 * `chat`: send a message to one of the user's xclaw sessions and get the agent's answer. The call
 * is a run (trigger API) through the same path as the OpenAI-compatible API
 * (lib/openai-api/agent-completion.ts): a new session unless `session_id` continues one (another
 * user's is "No such session."), the agent's tools on the server under the approval policy, and a
 * call that needs approval answered with its pending approval and the link to decide it in the web
 * chat; the next `chat` in that session, after the decision, gets the rest of the answer.
 */
const ZPendingApproval = z.object({ id: z.string(), tool: z.string(), risk: z.string(), title: z.string().optional(), link: z.string() });

const chatOutput = {
  answer: z.string(),
  session_id: z.string(),
  pending_approvals: z.array(ZPendingApproval),
};

function previewTitle(preview: unknown): string | undefined {
  return preview && typeof preview === "object" && "title" in preview && typeof preview.title === "string" ? preview.title : undefined;
}

/** The session's undecided approvals, each with the page where its owner decides it. */
async function pendingApprovals(options: { userId: string; sessionId: string; link: string }): Promise<z.infer<typeof ZPendingApproval>[]> {
  const approvals = await db().approval.findMany({
    where: { userId: options.userId, sessionId: options.sessionId, status: "PENDING" },
    orderBy: { createdAt: "asc" },
    select: { id: true, toolName: true, risk: true, preview: true },
  });
  return approvals.map((approval) => ({ id: approval.id, tool: approval.toolName, risk: approval.risk, title: previewTitle(approval.preview), link: options.link }));
}

/**
 * A run takes minutes and the MCP SDK's clients give up on a request after 60 s unless progress
 * arrives (`resetTimeoutOnProgress`). A client that sends a progressToken gets a notification when
 * the run has started and then every 10 s until the answer; the SSE stream's own keep-alive
 * comments keep proxies from closing the connection in between.
 */
const HEARTBEAT_MS = 10_000;

function progressReporter(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): (message: string) => void {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return (message) => {
    if (token === undefined) return;
    // A client that went away misses a notification; the run goes on and the answer is in the session.
    extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++progress, message } }).catch(() => {});
  };
}

export async function registerChatTool(server: McpServer, options: { user: User; requestUrl: string; signal: AbortSignal }) {
  const { user } = options;
  const agents = await listAgents(user.id);
  const agentNames = agents.map((agent) => agent.name);
  const agentDescription = `Which agent answers a new session: omit for the main agent (every tool), or one of: ${agents.map((agent) => `${agent.name} (${agent.description})`).join("; ")}. A continued session keeps its agent.`;
  server.registerTool(
    "chat",
    {
      title: "Chat with xclaw",
      description:
        "Send a message to the user's xclaw agent and get its answer. The agent works on the xclaw server with the user's tools (files in their workspace, a sandboxed shell, a browser, memory, knowledge bases). Actions that need the user's approval stop the answer and are listed in pending_approvals with a link; the user decides them in xclaw, then another chat call in the same session gets the rest. Pass session_id from an earlier answer to continue that conversation.",
      inputSchema: {
        message: ZMessageText.describe("What to ask or tell the agent."),
        session_id: z.string().trim().min(1).max(100).optional().describe("Continue this xclaw session (the session_id of an earlier answer, or one from list_sessions); omit to start a new one."),
        agent: (agentNames.length ? z.enum(agentNames as [string, ...string[]]) : z.string().trim().min(1).max(40)).optional().describe(agentDescription),
      },
      outputSchema: chatOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    ({ message, session_id: sessionId, agent }, extra) =>
      toolCall("chat", async () => {
        const choice = await resolveModel(user.id, agent ? `${MAIN_MODEL}:${agent}` : MAIN_MODEL);
        const completion = await startAgentCompletion({ user, agent: choice.agent, sessionId, text: message, lastUserText: message, requestUrl: options.requestUrl, signal: options.signal });
        const progress = progressReporter(extra);
        progress(`Working in xclaw session ${completion.sessionId}.`);
        const heartbeat = setInterval(() => progress("The agent is still working."), HEARTBEAT_MS);
        let text: string;
        try {
          ({ text } = await completionText(completion.events));
        } finally {
          clearInterval(heartbeat);
        }
        const link = sessionLink(completion.sessionId, options.requestUrl);
        const pending = await pendingApprovals({ userId: user.id, sessionId: completion.sessionId, link });
        return toolData({ answer: text, session_id: completion.sessionId, pending_approvals: pending }, `${text}\n\n(xclaw session: ${completion.sessionId})`);
      }),
  );
}

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { appVersion } from "@/lib/config/environment";
import type { User } from "@/lib/db/generated/client";
import { readJson } from "@/lib/http/route";
import { requireApiToken } from "@/lib/openai-api/openai-errors";
import { registerChatTool } from "./chat-tool";
import { registerDataTools } from "./data-tools";
import { registerSkillPrompts } from "./skill-prompts";

/**
 * POST /api/mcp: xclaw as an MCP server, on the official SDK (`McpServer` and the web-standard
 * Streamable HTTP transport). Stateless: every request carries the API token and gets a server
 * and transport of its own, built for the token's user, so every tool acts as that user and
 * nothing is shared between requests (no Mcp-Session-Id; conversations are xclaw sessions named
 * in `chat`'s arguments). The token is checked before the body is read; the body goes through
 * the same JSON rules as every /api route (readJson) and is handed to the transport parsed.
 * Answers are SSE streams, so a `chat` that runs for minutes keeps its connection alive through
 * proxies with the transport's keep-alive comments.
 */
function buildServer(options: { user: User; request: Request }): Promise<McpServer> {
  const { user, request } = options;
  const server = new McpServer(
    { name: "xclaw", title: "xclaw", version: appVersion() },
    {
      instructions:
        "xclaw is the user's own AI agent platform. Use chat to hand a task or question to their xclaw agent (it works with their files, sandboxed shell, browser and memory on the xclaw server); actions that need approval are decided by the user in xclaw's web chat, then chat again in the same session for the rest. list_sessions, search_memory and search_knowledge read the user's xclaw data. The prompts are the user's xclaw skills.",
    },
  );
  const context = { requestUrl: request.url, signal: request.signal };
  return Promise.all([registerChatTool(server, { user, ...context }), registerDataTools(server, { userId: user.id, ...context }), registerSkillPrompts(server, { userId: user.id })]).then(() => server);
}

export async function handleMcpPost(request: Request): Promise<Response> {
  const { user } = await requireApiToken(request);
  const body = await readJson(request, z.unknown());
  const server = await buildServer({ user, request });
  // DNS-rebinding protection (Host/Origin allow-lists) stays off: a page a rebinding attack
  // controls has no bearer token to send, and cookies are refused above (SECURITY.md).
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}

import { z } from "zod";
import { appVersion } from "@/lib/config/environment";
import { AppError } from "@/lib/errors";
import { readJson } from "@/lib/http/route";
import { requireApiToken } from "@/lib/openai-api/openai-errors";
import { ASK_TOOL, askToolDefinition, callAskTool, ZAskArguments } from "./ask-tool";
import { INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, rpcError, rpcResult, ZJsonRpcMessage } from "./json-rpc";

/**
 * POST /api/mcp: xclaw's agents as an MCP server over Streamable HTTP, stateless (no
 * Mcp-Session-Id: every request carries the API token, and conversations live in xclaw sessions
 * named in the tool's arguments). Requests are answered with one JSON response; the server sends
 * nothing on its own, so there is no GET stream.
 */
export const SUPPORTED_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
const LATEST = SUPPORTED_VERSIONS[0];

const ZToolCall = z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

function negotiate(requested: unknown): string {
  return typeof requested === "string" && (SUPPORTED_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST;
}

export async function handleMcpPost(request: Request): Promise<Response> {
  const { user } = await requireApiToken(request);
  const version = request.headers.get("mcp-protocol-version");
  if (version && !(SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
    throw new AppError("bad_request", `Unsupported MCP-Protocol-Version ${version}; this server speaks ${SUPPORTED_VERSIONS.join(", ")}.`);
  }
  const parsed = ZJsonRpcMessage.safeParse(await readJson(request, z.unknown()));
  if (!parsed.success) return rpcError(null, INVALID_REQUEST, "Send one JSON-RPC 2.0 message (batches are not part of MCP).", 400);
  const message = parsed.data;
  // Notifications (notifications/initialized, cancellations) and responses need no answer.
  if (message.id === undefined || !message.method) return new Response(null, { status: 202 });
  const id = message.id;
  switch (message.method) {
    case "initialize":
      return rpcResult(id, {
        protocolVersion: negotiate(message.params?.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "xclaw", title: "xclaw agents", version: appVersion() },
        instructions: `Call the ${ASK_TOOL} tool to hand a task to the user's xclaw agent; it answers when its run ends. Actions that need approval are decided by the user in xclaw's web chat.`,
      });
    case "ping":
      return rpcResult(id, {});
    case "tools/list":
      return rpcResult(id, { tools: [await askToolDefinition(user.id)] });
    case "tools/call": {
      const call = ZToolCall.safeParse(message.params);
      if (!call.success) return rpcError(id, INVALID_PARAMS, "tools/call needs params.name and params.arguments.");
      if (call.data.name !== ASK_TOOL) return rpcError(id, INVALID_PARAMS, `Unknown tool "${call.data.name}"; this server has one tool, ${ASK_TOOL}.`);
      const input = ZAskArguments.safeParse(call.data.arguments ?? {});
      if (!input.success) return rpcError(id, INVALID_PARAMS, `Invalid arguments for ${ASK_TOOL}: ${input.error.issues[0]?.path.join(".") || "arguments"}: ${input.error.issues[0]?.message}`);
      return rpcResult(id, await callAskTool({ user, arguments: input.data, requestUrl: request.url, signal: request.signal }));
    }
    default:
      return rpcError(id, METHOD_NOT_FOUND, `Method not found: ${message.method}.`);
  }
}

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isAppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";

/**
 * What an MCP tool answers: the structured result and the same data as text (clients that read
 * only `content` see it too), or a tool error (`isError: true`) the calling model can act on. The
 * SDK would put any thrown error's message into the result; here only AppError messages (written
 * for people) reach the client, anything else is logged and answered with a generic sentence.
 */
const log = createLogger("mcp-server");

export function toolData(structuredContent: Record<string, unknown>, text = JSON.stringify(structuredContent, null, 2)): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

export async function toolCall(name: string, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error)) return toolError(error.message);
    log.error("an MCP tool call failed", { tool: name, error });
    return toolError("Something went wrong on the xclaw server. Try again; if it keeps happening, tell an administrator.");
  }
}

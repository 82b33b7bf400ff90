import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { handleMcpPost } from "@/lib/mcp-server/mcp-endpoint";

// A chat tool call lasts as long as the agent's run.
export const maxDuration = 800;

/** xclaw as an MCP server (Streamable HTTP, stateless, on the MCP SDK): lib/mcp-server. */
export const POST = route(handleMcpPost);

// Stateless: the server sends nothing on its own (no GET stream) and keeps no MCP session to delete.
const notAllowed = route(async () => {
  throw new AppError("method_not_allowed", "This MCP endpoint takes POST only (stateless Streamable HTTP).", { headers: { allow: "POST" } });
});
export const GET = notAllowed;
export const DELETE = notAllowed;

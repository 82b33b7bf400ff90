import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

/**
 * xclaw as an MCP server in the built app, as a person uses it: an MCP client (the SDK's own)
 * with their API token asks the agent for something that needs approval, the person opens the
 * link it got, approves on the card, and the client's next `chat` gets the rest. Proves the SDK
 * runs inside the production build (the integration test covers the rest). PGlite pass only: the
 * client sees nothing of the database.
 */
test.skip(process.env.E2E_DATABASE !== "pglite", "one pass is enough: the client sees only HTTP");
test.describe.configure({ timeout: 120_000 });

const baseUrl = new URL(process.env.E2E_BASE_URL ?? "http://localhost:3000").origin;
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
}

type TChat = { answer: string; session_id: string; pending_approvals: { id: string; tool: string; link: string }[] };

test("an MCP client chats, the person approves from the link, the next chat gets the rest", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("mcp") });
  const { token } = await page.evaluate(async () => {
    const response = await fetch("/api/tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "mcp" }) });
    return (await response.json()) as { token: string };
  });
  const client = new Client({ name: "xclaw-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["chat", "list_sessions", "search_knowledge", "search_memory"]);

    await scriptModel([{ toolCalls: [{ name: "write_file", arguments: { path: "from-mcp.md", content: "hello\n" } }] }, { text: "Wrote from-mcp.md." }]);
    const paused = (await client.callTool({ name: "chat", arguments: { message: "Write from-mcp.md" } })) as CallToolResult;
    const first = paused.structuredContent as TChat;
    expect(first.pending_approvals).toEqual([expect.objectContaining({ tool: "write_file", link: `${baseUrl}/chat/${first.session_id}` })]);

    await page.goto(first.pending_approvals[0]!.link);
    const card = page.getByTestId("approval-card");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByText("Wrote from-mcp.md.")).toBeVisible({ timeout: 30_000 });

    const rest = (await client.callTool({ name: "chat", arguments: { message: "go on", session_id: first.session_id } })).structuredContent as TChat;
    expect(rest).toEqual({ answer: "Wrote from-mcp.md.", session_id: first.session_id, pending_approvals: [] });

    const listed = (await client.callTool({ name: "list_sessions", arguments: {} })).structuredContent as { sessions: { id: string }[] };
    expect(listed.sessions.map((session) => session.id)).toContain(first.session_id);
  } finally {
    await client.close();
  }
});

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "@/app/api/mcp/route";
import { POST as createMemory } from "@/app/api/memories/route";
import { POST as createSkill } from "@/app/api/skills/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, newSession, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { serveRoutes } from "../support/http-server";
import { readUiStream } from "../support/ui-stream";

/**
 * The MCP server (POST /api/mcp) over real HTTP, driven by the MCP SDK's own client as any MCP
 * client would (Streamable HTTP, the API token as the bearer), with the HTTP fake LLM behind the agent.
 */
let fake: TFakeLlm;
let dataDirectory: string;
let endpoint: string;
let close: () => Promise<void>;
const clients: Client[] = [];

beforeAll(async () => {
  fake = await startFakeLlm();
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-mcp-server-"));
  process.env.XCLAW_DATA_DIR = dataDirectory;
  resetEnvironment();
  let port: number;
  ({ port, close } = await serveRoutes({ "/api/mcp": { POST: mcpPost, GET: mcpGet, DELETE: mcpDelete } }));
  endpoint = `http://127.0.0.1:${port}/api/mcp`;
}, 30_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await close();
  await fake.close();
  await rm(dataDirectory, { recursive: true, force: true });
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "xclaw-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function mcpUser() {
  const user = await createUser();
  return { ...user, client: await connect(user.token) };
}

type TChatResult = { answer: string; session_id: string; pending_approvals: { id: string; tool: string; risk: string; title?: string; link: string }[] };

async function chat(client: Client, args: Record<string, unknown>) {
  const result = (await client.callTool({ name: "chat", arguments: args })) as CallToolResult;
  return { result, data: result.structuredContent as TChatResult };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("POST /api/mcp with the MCP SDK's client", () => {
  it("initializes statelessly on protocol 2025-11-25 and lists the tools", async () => {
    const { client } = await mcpUser();
    expect(client.getServerVersion()).toMatchObject({ name: "xclaw" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {} });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["chat", "list_sessions", "search_knowledge", "search_memory"]);
    const chatTool = tools.find((tool) => tool.name === "chat")!;
    expect(chatTool.inputSchema.required).toEqual(["message"]);
    expect(chatTool.outputSchema?.required).toEqual(expect.arrayContaining(["answer", "session_id", "pending_approvals"]));
    await expect(client.ping()).resolves.toEqual({});

    const initialize = await fetch(endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${(await createUser()).token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get("mcp-session-id")).toBeNull();
    expect(await initialize.text()).toContain('"protocolVersion":"2025-11-25"');
  }, 30_000);

  it("chat answers in a new API session and continues it with session_id", async () => {
    const { client, user } = await mcpUser();
    fake.script([{ text: "First answer." }, { text: "Second answer." }]);
    const first = await chat(client, { message: "Question one" });
    expect(first.result.isError).toBeFalsy();
    expect(first.data).toMatchObject({ answer: "First answer.", pending_approvals: [] });
    const sessionId = first.data.session_id;
    expect(text(first.result)).toContain(sessionId);
    expect((await db().chatSession.findFirstOrThrow({ where: { id: sessionId, userId: user.id } })).trigger).toBe("API");

    // A client that asks for progress hears when the run has started (runs outlast the SDK's 60 s request timeout).
    const progress: Progress[] = [];
    const second = (await client.callTool({ name: "chat", arguments: { message: "Question two", session_id: sessionId } }, undefined, { onprogress: (update) => progress.push(update), resetTimeoutOnProgress: true })) as CallToolResult;
    expect(second.structuredContent).toEqual({ answer: "Second answer.", session_id: sessionId, pending_approvals: [] });
    expect(progress[0]).toMatchObject({ progress: 1, message: `Working in xclaw session ${sessionId}.` });
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("First answer.");
  }, 60_000);

  it("chat returns the pending approval with its link, and the rest after the owner decides in the web chat", async () => {
    const { client, cookie } = await mcpUser();
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "mcp.md", content: "x\n" } }] }, { text: "Written." }]);
    const paused = await chat(client, { message: "write it" });
    const sessionId = paused.data.session_id;
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId, status: "PENDING" } });
    expect(paused.data.pending_approvals).toEqual([expect.objectContaining({ id: approval.id, tool: "write_file", link: `${new URL(endpoint).origin}/chat/${sessionId}` })]);
    expect(paused.data.answer).toContain("Waiting for your approval to run write_file");

    // Undecided, the session answers with the same approval and runs nothing.
    const again = await chat(client, { message: "are you done?", session_id: sessionId });
    expect(again.data.pending_approvals.map((pending) => pending.id)).toEqual([approval.id]);
    expect(fake.requests).toHaveLength(1);

    await readUiStream(await decideResponse(cookie, sessionId, approval.id, { decision: "approve" }));
    await waitForRun(sessionId);
    const rest = await chat(client, { message: "go on", session_id: sessionId });
    expect(rest.data).toEqual({ answer: "Written.", session_id: sessionId, pending_approvals: [] });
  }, 60_000);

  it("list_sessions and search_memory see only the token's user's own data", async () => {
    const owner = await mcpUser();
    const other = await mcpUser();
    fake.script([{ text: "Owner only." }]);
    const apiSession = (await chat(owner.client, { message: "mine" })).data.session_id;
    const webSession = await newSession(owner.cookie);
    await call(createMemory, "/api/memories", { cookie: owner.cookie, body: { content: "The owner's favourite editor is Helix." } });
    await call(createMemory, "/api/memories", { cookie: other.cookie, body: { content: "The other user's favourite editor is Zed." } });

    const listed = (await owner.client.callTool({ name: "list_sessions", arguments: {} })) as CallToolResult;
    const sessions = (listed.structuredContent as { sessions: { id: string; trigger: string; link: string }[] }).sessions;
    expect(sessions.map((session) => session.id).sort()).toEqual([apiSession, webSession].sort());
    expect(sessions.find((session) => session.id === apiSession)).toMatchObject({ trigger: "api", link: expect.stringContaining(`/chat/${apiSession}`) });
    const limited = (await owner.client.callTool({ name: "list_sessions", arguments: { limit: 1 } })) as CallToolResult;
    expect((limited.structuredContent as { sessions: unknown[] }).sessions).toHaveLength(1);
    const othersList = (await other.client.callTool({ name: "list_sessions", arguments: {} })) as CallToolResult;
    expect((othersList.structuredContent as { sessions: unknown[] }).sessions).toEqual([]);

    const found = (await owner.client.callTool({ name: "search_memory", arguments: { query: "favourite editor" } })) as CallToolResult;
    expect((found.structuredContent as { memories: { content: string }[] }).memories.map((memory) => memory.content)).toEqual(["The owner's favourite editor is Helix."]);
    const othersFound = (await other.client.callTool({ name: "search_memory", arguments: { query: "favourite editor Helix" } })) as CallToolResult;
    expect((othersFound.structuredContent as { memories: { content: string }[] }).memories.map((memory) => memory.content)).toEqual(["The other user's favourite editor is Zed."]);

    const knowledge = (await owner.client.callTool({ name: "search_knowledge", arguments: { query: "editor" } })) as CallToolResult;
    expect(knowledge.isError).toBeFalsy();
    expect((knowledge.structuredContent as { results: unknown[] }).results).toEqual([]);

    // Another user's session is "not found" for chat, and nothing runs in it.
    const intruder = await other.client.callTool({ name: "chat", arguments: { message: "let me in", session_id: apiSession } });
    expect(intruder).toMatchObject({ isError: true, content: [{ type: "text", text: "No such session." }] });
    // The memories' embeddings are requests too; one model call was the owner's.
    expect(fake.requests.filter((request) => request.api === "openai")).toHaveLength(1);
  }, 60_000);

  it("serves the user's own skills as prompts, and not another user's", async () => {
    const owner = await mcpUser();
    const other = await mcpUser();
    const created = await call(createSkill, "/api/skills", {
      cookie: owner.cookie,
      body: { name: "release-notes", description: "Write release notes from a changelog.", body: "Group the changes by area.\nLead with what users notice." },
    });
    expect(created.status).toBe(201);
    const client = await connect(owner.token);
    const { prompts } = await client.listPrompts();
    expect(prompts).toContainEqual(expect.objectContaining({ name: "release-notes", description: "Write release notes from a changelog." }));
    const prompt = await client.getPrompt({ name: "release-notes" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: expect.stringContaining("Group the changes by area.\nLead with what users notice.") } }]);

    expect((await other.client.listPrompts()).prompts.map((listed) => listed.name)).not.toContain("release-notes");
    await expect(other.client.getPrompt({ name: "release-notes" })).rejects.toThrow(/release-notes/);
  }, 30_000);

  it("reports bad arguments and unknown agents as tool errors without internals", async () => {
    const { client } = await mcpUser();
    const missing = (await client.callTool({ name: "chat", arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("message");
    const unknownAgent = (await client.callTool({ name: "chat", arguments: { message: "hi", agent: "nobody" } })) as CallToolResult;
    expect(unknownAgent.isError).toBe(true);
    expect(text(unknownAgent)).not.toMatch(/\n\s+at /);
    expect(fake.requests).toHaveLength(0);
  }, 30_000);

  it("refuses without a token, with a bad token and with a session cookie (401), and GET with 405", async () => {
    const { cookie } = await createUser();
    await expect(connect("xclaw_not-a-token")).rejects.toMatchObject({ code: 401 });
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const anonymous = await fetch(endpoint, { method: "POST", headers, body: initialize });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "unauthorized" } });
    const withCookie = await fetch(endpoint, { method: "POST", headers: { ...headers, cookie, "sec-fetch-site": "same-origin" }, body: initialize });
    expect(withCookie.status).toBe(401);
    expect((await fetch(endpoint)).status).toBe(405);
  }, 30_000);
});

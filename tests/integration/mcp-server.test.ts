import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "@/app/api/mcp/route";
import { POST as createToken } from "@/app/api/tokens/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { waitForRun } from "@/lib/runs/local-runs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { serveRoutes } from "../support/http-server";
import { readUiStream } from "../support/ui-stream";

/** The MCP server (POST /api/mcp) over real HTTP: JSON-RPC as an MCP client sends it, the fake LLM behind the agent. */
let fake: TFakeLlm;
let dataDirectory: string;
let endpoint: string;
let close: () => Promise<void>;

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

async function mcpUser() {
  const user = await createUser();
  const created = await call(createToken, "/api/tokens", { cookie: user.cookie, body: { name: "mcp" } });
  let nextId = 1;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${created.json.token}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
  const rpc = async (method: string, params?: Record<string, unknown>) => {
    const response = await post({ jsonrpc: "2.0", id: nextId++, method, params }, { "mcp-protocol-version": "2025-11-25" });
    return { status: response.status, body: (await response.json()) as { id: number; result?: Record<string, unknown> & { structuredContent?: { answer: string; session_id: string }; content?: { text: string }[]; isError?: boolean }; error?: { code: number; message: string } } };
  };
  return { ...user, post, rpc };
}

describe("POST /api/mcp", () => {
  it("initializes statelessly, acknowledges notifications with 202 and lists the ask tool with the caller's agents", async () => {
    const { post, rpc } = await mcpUser();
    const initialize = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get("mcp-session-id")).toBeNull();
    const initialized = (await initialize.json()) as { id: number; result: { protocolVersion: string; capabilities: unknown; serverInfo: { name: string } } };
    expect(initialized).toMatchObject({ id: 0, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "xclaw" } } });
    const unknownVersion = (await (await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "1999-01-01" } })).json()) as { result: { protocolVersion: string } };
    expect(unknownVersion.result.protocolVersion).toBe("2025-11-25");

    const notification = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe("");

    const listed = await rpc("tools/list");
    const tools = listed.body.result!.tools as { name: string; inputSchema: { properties: { agent: { enum: string[] } }; required: string[] } }[];
    expect(tools.map((tool) => tool.name)).toEqual(["ask"]);
    expect(tools[0]!.inputSchema.required).toEqual(["message"]);
    expect(tools[0]!.inputSchema.properties.agent.enum).toEqual(expect.arrayContaining(["coder", "reviewer"]));
    expect((await rpc("ping")).body.result).toEqual({});
    expect((await rpc("resources/list")).body.error?.code).toBe(-32601);
  }, 30_000);

  it("asks the agent in a new API session, and continues it with session_id", async () => {
    const { rpc, user } = await mcpUser();
    fake.script([{ text: "First answer." }, { text: "Second answer." }]);
    const first = await rpc("tools/call", { name: "ask", arguments: { message: "Question one" } });
    expect(first.body.result!.isError).toBe(false);
    const { answer, session_id: sessionId } = first.body.result!.structuredContent!;
    expect(answer).toBe("First answer.");
    expect(first.body.result!.content![0]!.text).toContain(sessionId);
    expect((await db().chatSession.findFirstOrThrow({ where: { id: sessionId, userId: user.id } })).trigger).toBe("API");

    const second = await rpc("tools/call", { name: "ask", arguments: { message: "Question two", session_id: sessionId } });
    expect(second.body.result!.structuredContent).toEqual({ answer: "Second answer.", session_id: sessionId });
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("First answer.");
  }, 60_000);

  it("answers with the approval link when a call needs approval, and gives the rest after the decision", async () => {
    const { rpc, cookie } = await mcpUser();
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "mcp.md", content: "x\n" } }] }, { text: "Written." }]);
    const paused = await rpc("tools/call", { name: "ask", arguments: { message: "write it" } });
    const sessionId = paused.body.result!.structuredContent!.session_id;
    expect(paused.body.result!.structuredContent!.answer).toContain(`Waiting for your approval to run write_file. Approvals are decided in xclaw, not through the API: http://127.0.0.1`);
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId, status: "PENDING" } });
    await readUiStream(await decideResponse(cookie, sessionId, approval.id, { decision: "approve" }));
    await waitForRun(sessionId);
    const rest = await rpc("tools/call", { name: "ask", arguments: { message: "go on", session_id: sessionId } });
    expect(rest.body.result!.structuredContent!.answer).toBe("Written.");
  }, 60_000);

  it("refuses without a token (401), another user's session as a tool error, bad arguments as invalid params, and GET with 405", async () => {
    const owner = await mcpUser();
    const other = await mcpUser();
    fake.script([{ text: "Owner only." }]);
    const sessionId = (await owner.rpc("tools/call", { name: "ask", arguments: { message: "mine" } })).body.result!.structuredContent!.session_id;

    const anonymous = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(anonymous.status).toBe(401);
    const withCookie = await fetch(endpoint, { method: "POST", headers: { cookie: other.cookie, "content-type": "application/json", "sec-fetch-site": "same-origin" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(withCookie.status).toBe(401);
    const intruder = await other.rpc("tools/call", { name: "ask", arguments: { message: "let me in", session_id: sessionId } });
    expect(intruder.body.result).toMatchObject({ isError: true, content: [{ text: "No such session." }] });
    expect(fake.requests).toHaveLength(1);

    expect((await other.rpc("tools/call", { name: "ask", arguments: {} })).body.error?.code).toBe(-32602);
    expect((await other.rpc("tools/call", { name: "delete_everything", arguments: {} })).body.error?.code).toBe(-32602);
    expect((await other.rpc("tools/call", { name: "ask", arguments: { message: "hi", agent: "nobody" } })).body.result?.isError).toBe(true);
    const wrongVersion = await other.post({ jsonrpc: "2.0", id: 9, method: "ping" }, { "mcp-protocol-version": "1999-01-01" });
    expect(wrongVersion.status).toBe(400);
    expect((await fetch(endpoint)).status).toBe(405);
  }, 60_000);
});

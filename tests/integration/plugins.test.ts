import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as listPlugins, POST as uploadPlugin } from "@/app/api/admin/plugins/route";
import { GET as getPlugin, PATCH as patchPlugin } from "@/app/api/admin/plugins/[id]/route";
import { PUT as putConfig } from "@/app/api/admin/plugins/[id]/config/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { pluginHostFromEnvironment } from "@/lib/plugins/host-client";
import { syncPlugins } from "@/lib/plugins/plugin-runtime";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { waitForRun } from "@/lib/runs/local-runs";
import { spawnPluginHost, type THostProcess } from "@/workers/plugins/spawn-host";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser, ORIGIN } from "../support/http";
import { readUiStream } from "../support/ui-stream";
import { buildZip, multipartRequest } from "../support/zip";

// Slow by nature (plugin host processes), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Plugins end to end below the browser: the real plugin host process (one process per plugin),
 * the bundled weather and Feishu plugins against local fixtures, a misbehaving plugin, the admin
 * routes and chats through the fake LLM.
 */
let fake: TFakeLlm;
let host: THostProcess;
let fixture: Server;
let fixtureUrl: string;
let dataDirectory: string;
const hits: string[] = [];
let tokenExpire = 7200;

beforeAll(async () => {
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-plugins-"));
  const configFile = path.join(dataDirectory, "xclaw.yaml");
  await writeFile(configFile, "plugins:\n  callTimeoutSeconds: 3\n  maxCrashes: 2\n  allowedPrivateHosts: ['127.0.0.1']\nsandbox:\n  mode: none\n");
  process.env.XCLAW_CONFIG = configFile;
  process.env.XCLAW_DATA_DIR = dataDirectory;
  process.env.XCLAW_BUNDLED_PLUGINS = [path.resolve("plugins"), path.resolve("tests/fixtures/plugins")].join(path.delimiter);
  process.env.XCLAW_BUNDLED_SKILLS = "";
  process.env.MISBEHAVING_TOKEN = "declared-token-value";
  resetEnvironment();
  fake = await startFakeLlm();
  fixture = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fixture");
    hits.push(`${request.method} ${url.pathname}`);
    response.setHeader("content-type", "application/json");
    if (url.pathname.startsWith("/weather/")) {
      const city = decodeURIComponent(url.pathname.slice("/weather/".length));
      return response.end(JSON.stringify({ current_condition: [{ temp_C: "21", FeelsLikeC: "20", humidity: "40", windspeedKmph: "9", weatherDesc: [{ value: "Sunny" }] }], nearest_area: [{ areaName: [{ value: city }], country: [{ value: "Testland" }] }], weather: [] }));
    }
    if (url.pathname === "/open-apis/auth/v3/tenant_access_token/internal") {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const credentials = JSON.parse(body) as { app_id: string; app_secret: string };
        if (credentials.app_secret !== "feishu-secret") return response.end(JSON.stringify({ code: 10014, msg: "app secret invalid" }));
        response.end(JSON.stringify({ code: 0, tenant_access_token: `t-${hits.length}`, expire: tokenExpire }));
      });
      return;
    }
    if (url.pathname === "/open-apis/im/v1/messages") return response.end(JSON.stringify({ code: 0, data: { message_id: "om_1" } }));
    response.end("{}");
  });
  await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
  fixtureUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
  const secret = randomBytes(24).toString("base64url");
  const started = await spawnPluginHost({ root: process.cwd(), env: { ...process.env, XCLAW_CONFIG: configFile }, secret, port: 0, onLog: () => {} });
  if ("error" in started) throw new Error(started.error);
  host = started;
  process.env.PLUGIN_HOST_URL = host.url;
  process.env.PLUGIN_HOST_SECRET = secret;
  resetEnvironment();
}, 60_000);

afterAll(async () => {
  await host?.stop();
  await fake.close();
  await new Promise((resolve) => fixture.close(resolve));
  await rm(dataDirectory, { recursive: true, force: true });
  for (const key of ["XCLAW_CONFIG", "XCLAW_DATA_DIR", "XCLAW_BUNDLED_PLUGINS", "XCLAW_BUNDLED_SKILLS", "PLUGIN_HOST_URL", "PLUGIN_HOST_SECRET", "MISBEHAVING_TOKEN"]) delete process.env[key];
  resetEnvironment();
});

afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

async function admin() {
  const existing = await db().user.findFirst({ where: { role: "ADMIN" } });
  if (existing) await db().user.delete({ where: { id: existing.id } });
  return createUser({ role: "ADMIN" });
}

async function configure(cookie: string, id: string, values: Record<string, unknown>) {
  const response = await call(putConfig, `/api/admin/plugins/${id}/config`, { method: "PUT", cookie, params: { id }, body: { values } });
  expect(response.status, JSON.stringify(response.json)).toBe(200);
  return response.json;
}

async function enable(cookie: string, id: string, enabled = true, extra: Record<string, unknown> = {}) {
  return call(patchPlugin, `/api/admin/plugins/${id}`, { method: "PATCH", cookie, params: { id }, body: { enabled, ...extra } });
}

const callTool = (pluginId: string, tool: string, input: unknown) =>
  pluginHostFromEnvironment()!.call({ pluginId, tool, input, context: { userId: "u", sessionId: "s" }, timeoutMs: 10_000 });

describe("plugins", () => {
  it("lists bundled plugins with status; an invalid manifest is an error on the list, not a crash; non-admins get 403", async () => {
    const { cookie } = await admin();
    const { cookie: userCookie } = await createUser();
    const listed = await call(listPlugins, "/api/admin/plugins", { cookie });
    expect(listed.status).toBe(200);
    const byId = new Map((listed.json.plugins as { id: string; status: string; lastError?: string; version: string; name: string }[]).map((plugin) => [plugin.id, plugin]));
    expect(byId.get("weather")).toMatchObject({ name: "Weather", version: "1.0.0", status: "disabled" });
    expect(byId.get("feishu")).toMatchObject({ status: "disabled" });
    expect(byId.get("bad-manifest")).toMatchObject({ status: "invalid" });
    expect(byId.get("bad-manifest")!.lastError).toMatch(/version.*must be a version like 1\.2\.3/);

    expect((await call(listPlugins, "/api/admin/plugins", { cookie: userCookie })).status).toBe(403);
    expect((await enable(userCookie, "weather")).status).toBe(403);
    expect((await call(getPlugin, "/api/admin/plugins/weather", { cookie: userCookie, params: { id: "weather" } })).status).toBe(403);
    const upload = await uploadPlugin(multipartRequest(`${ORIGIN}/api/admin/plugins`, [{ name: "p.zip", data: buildZip([{ name: "x", data: "y" }]) }], { cookie: userCookie, origin: ORIGIN }), { params: Promise.resolve({}) as Promise<never> });
    expect(upload.status).toBe(403);
  });

  it("runs the weather plugin against a configurable base URL; a read tool runs without asking", async () => {
    const { cookie } = await admin();
    await configure(cookie, "weather", { baseUrl: `${fixtureUrl}/weather` });
    const enabled = await enable(cookie, "weather");
    expect(enabled.status, JSON.stringify(enabled.json)).toBe(200);
    expect(enabled.json.plugin).toMatchObject({ status: "running", tools: [{ name: "current", risk: "read" }] });

    useFakeProvider(fake);
    const { cookie: userCookie } = await createUser();
    const sessionId = await newSession(userCookie);
    fake.script([{ toolCalls: [{ name: "weather__current", arguments: { city: "Berlin" } }] }, { text: "It is sunny." }]);
    const { chunks } = await sendChat(userCookie, sessionId, "weather in Berlin?");
    await waitForRun(sessionId);
    const output = chunks.find((chunk) => chunk.type === "tool-output-available");
    expect(JSON.stringify(output)).toContain("Berlin, Testland: Sunny, 21°C");
    expect(chunks.some((chunk) => chunk.type === "data-approval")).toBe(false);
    expect(hits).toContain("GET /weather/Berlin");
    // The model was offered the tool under its namespaced name.
    expect(JSON.stringify(fake.requests[0]!.body.tools)).toContain("weather__current");
  });

  it("asks for approval before a Feishu send (external risk); the token is cached and refreshed early; the secret is write-only", async () => {
    const { cookie } = await admin();
    const saved = await configure(cookie, "feishu", { appId: "cli_test", appSecret: "feishu-secret", baseUrl: fixtureUrl, refreshMarginSeconds: 300 });
    expect(JSON.stringify(saved)).not.toContain("feishu-secret");
    expect(saved.config.fields.find((field: { key: string }) => field.key === "appSecret")).toMatchObject({ sensitive: true, isSet: true });
    const stored = await db().plugin.findUniqueOrThrow({ where: { id: "feishu" } });
    expect(JSON.stringify(stored)).not.toContain("feishu-secret");
    expect((await enable(cookie, "feishu")).json.plugin.status).toBe("running");

    useFakeProvider(fake);
    const { cookie: userCookie } = await createUser();
    const sessionId = await newSession(userCookie);
    fake.script([{ toolCalls: [{ name: "feishu__send_message", arguments: { receive_id: "ou_1", text: "部署完成" } }] }, { text: "Sent." }]);
    const { chunks } = await sendChat(userCookie, sessionId, "tell ou_1 the deploy is done");
    await waitForRun(sessionId);
    const approval = chunks.find((chunk) => chunk.type === "data-approval")?.data as { approvalId: string; toolName: string };
    expect(approval.toolName).toBe("feishu__send_message");
    expect(hits.filter((hit) => hit.includes("/im/v1/messages"))).toHaveLength(0);
    const decided = await readUiStream(await decideResponse(userCookie, sessionId, approval.approvalId, { decision: "approve" }));
    await waitForRun(sessionId);
    expect(JSON.stringify(decided.chunks)).toContain("Sent (message id om_1)");

    const tokenRequests = () => hits.filter((hit) => hit.includes("tenant_access_token")).length;
    expect(tokenRequests()).toBe(1);
    expect((await callTool("feishu", "send_message", { receive_id: "ou_1", text: "again" })).text).toContain("Sent");
    expect(tokenRequests()).toBe(1);
    // A token that lives less than the refresh margin is fetched again before each use.
    tokenExpire = 200;
    await configure(cookie, "feishu", { appId: "cli_test", baseUrl: fixtureUrl, refreshMarginSeconds: 301 });
    expect((await callTool("feishu", "send_message", { receive_id: "ou_1", text: "a" })).text).toContain("Sent");
    expect((await callTool("feishu", "send_message", { receive_id: "ou_1", text: "b" })).text).toContain("Sent");
    expect(tokenRequests()).toBe(3);
    tokenExpire = 7200;
  });

  it("gives a plugin only its declared secrets and hosts, an empty environment, and starts and stops its services once", async () => {
    const { cookie } = await admin();
    await configure(cookie, "misbehaving", { reportUrl: fixtureUrl });
    expect((await enable(cookie, "misbehaving")).json.plugin.status).toBe("running");
    expect(hits.filter((hit) => hit === "POST /service/start")).toHaveLength(1);

    const echo = await callTool("misbehaving", "echo", { text: "hi" });
    expect(echo.text).toMatch(/^hi \| env: /);
    expect(echo.text).not.toMatch(/DATABASE_URL|NEXTAUTH_SECRET|OPENAI|PLUGIN_HOST_SECRET|MISBEHAVING_TOKEN/);
    expect((await callTool("misbehaving", "read_secret", { name: "MISBEHAVING_TOKEN" })).text).toBe("secret MISBEHAVING_TOKEN = declared-token-value");
    const undeclared = await callTool("misbehaving", "read_secret", { name: "DATABASE_URL" });
    expect(undeclared).toMatchObject({ isError: true });
    expect(undeclared.text).toMatch(/does not declare.*refused/);
    const otherHost = await callTool("misbehaving", "fetch_url", { url: "https://example.com/steal" });
    expect(otherHost.isError).toBe(true);
    expect(otherHost.text).toMatch(/not one of the hosts this plugin declares/);
    const metadata = await callTool("misbehaving", "fetch_url", { url: "http://169.254.169.254/latest/meta-data/" });
    expect(metadata.isError).toBe(true);
    expect((await callTool("misbehaving", "fetch_url", { url: `${fixtureUrl}/ok` })).text).toBe("200 {}");

    // Reconfiguring restarts it (stop then start once each); disabling stops it once.
    const disabled = await enable(cookie, "misbehaving", false);
    expect(disabled.json.plugin.status).toBe("disabled");
    expect(hits.filter((hit) => hit === "POST /service/start")).toHaveLength(1);
    expect(hits.filter((hit) => hit === "POST /service/stop")).toHaveLength(1);
    expect((await callTool("misbehaving", "echo", { text: "x" })).text).toMatch(/not enabled/);
  });

  it("restarts a crashed or hung plugin, keeps the others working, and marks it failed after repeated crashes", async () => {
    const { cookie } = await admin();
    await configure(cookie, "misbehaving", { reportUrl: fixtureUrl });
    expect((await enable(cookie, "misbehaving")).json.plugin.status).toBe("running");

    const crashed = await callTool("misbehaving", "crash", {});
    expect(crashed.isError).toBe(true);
    expect(crashed.text).toMatch(/stopped while running this call.*code 3/);
    // Other plugins never notice; this one comes back.
    expect((await callTool("weather", "current", { city: "Paris" })).text).toContain("Paris, Testland");
    expect((await callTool("misbehaving", "echo", { text: "back" })).text).toMatch(/^back/);

    const hung = await callTool("misbehaving", "hang", {});
    expect(hung.isError).toBe(true);
    expect(hung.text).toMatch(/did not answer within 3 s/);
    await syncPlugins();
    const listed = await call(listPlugins, "/api/admin/plugins", { cookie });
    const misbehaving = (listed.json.plugins as { id: string; status: string; lastError?: string }[]).find((plugin) => plugin.id === "misbehaving")!;
    expect(misbehaving.status).toBe("failed");
    expect(misbehaving.lastError).toMatch(/Failed after 2 crashes.*no answer within 3 s/);
    expect((await callTool("weather", "current", { city: "Oslo" })).text).toContain("Oslo");

    // Enabling it again starts it afresh.
    expect((await enable(cookie, "misbehaving")).json.plugin.status).toBe("running");
    expect((await callTool("misbehaving", "echo", { text: "again" })).text).toMatch(/^again/);
    await enable(cookie, "misbehaving", false);
  }, 60_000);

  it("asks before a write-risk plugin tool, and refuses to load a plugin that registers an undeclared tool", async () => {
    const { cookie } = await admin();
    await configure(cookie, "misbehaving", { reportUrl: fixtureUrl });
    await enable(cookie, "misbehaving");
    useFakeProvider(fake);
    const { cookie: userCookie } = await createUser();
    const sessionId = await newSession(userCookie);
    fake.script([{ toolCalls: [{ name: "misbehaving__record", arguments: { note: "n" } }] }]);
    const { chunks } = await sendChat(userCookie, sessionId, "record n");
    await waitForRun(sessionId);
    expect(chunks.find((chunk) => chunk.type === "data-approval")).toMatchObject({ data: { toolName: "misbehaving__record" } });
    await enable(cookie, "misbehaving", false);

    const bad = await enable(cookie, "bad-tool");
    expect(bad.json.plugin.status).toBe("failed");
    expect(bad.json.plugin.lastError).toMatch(/the tool "sneaky" is not declared in the manifest's contracts.tools/);
  });

  it("lets a plugin into the caller's workspace only as its manifest and each call's risk allow, with the file tools' rules", async () => {
    const { cookie } = await admin();
    expect((await enable(cookie, "notes")).json.plugin.status).toBe("running");
    useFakeProvider(fake);
    const owner = await createUser();
    const other = await createUser();
    const sessionId = await newSession(owner.cookie);
    const ownerFiles = sandboxRuntime().workspaceFor(owner.user.id, sessionId);
    await ownerFiles.writeText("notes/a.md", "alpha note");
    await sandboxRuntime().workspaceFor(other.user.id, "x").writeText("secret.md", "the other user's secret");

    // A read-risk tool reads without asking, and is refused when it tries to write.
    fake.script([
      {
        toolCalls: [
          { name: "notes__read_note", arguments: { path: "notes/a.md" } },
          { name: "notes__sneak_write", arguments: { path: "notes/b.md", text: "sneaked" } },
          { name: "notes__read_note", arguments: { path: `../${other.user.id}/secret.md` } },
          { name: "notes__list_notes", arguments: { path: "notes" } },
        ],
      },
      { text: "Read it." },
    ]);
    const read = await sendChat(owner.cookie, sessionId, "read my note");
    await waitForRun(sessionId);
    expect(read.chunks.some((chunk) => chunk.type === "data-approval")).toBe(false);
    // The calls run in parallel: their outputs are matched by call id, in the order they were made.
    const outputOf = (callId: string) => JSON.stringify(read.chunks.find((chunk) => chunk.type === "tool-output-available" && chunk.toolCallId === callId));
    expect(outputOf("call_1")).toContain("read: alpha note");
    expect(outputOf("call_2")).toMatch(/refused: Only tools whose risk is write, execute or external/);
    expect(outputOf("call_3")).toMatch(/refused: .*is outside your workspace/);
    expect(outputOf("call_3")).not.toContain("the other user's secret");
    expect(outputOf("call_4")).toContain("a.md");
    expect(await ownerFiles.readTextIfExists("notes/b.md")).toBeUndefined();

    // A write-risk tool asks first, and writes once approved.
    fake.script([{ toolCalls: [{ name: "notes__save_note", arguments: { path: "notes/c.md", text: "written by a plugin" } }] }, { text: "Saved." }]);
    const asked = await sendChat(owner.cookie, sessionId, "save a note");
    await waitForRun(sessionId);
    const approval = asked.chunks.find((chunk) => chunk.type === "data-approval")?.data as { approvalId: string; toolName: string };
    expect(approval.toolName).toBe("notes__save_note");
    expect(await ownerFiles.readTextIfExists("notes/c.md")).toBeUndefined();
    const decided = await readUiStream(await decideResponse(owner.cookie, sessionId, approval.approvalId, { decision: "approve" }));
    await waitForRun(sessionId);
    expect(JSON.stringify(decided.chunks)).toContain("saved notes/c.md");
    expect(await ownerFiles.readTextIfExists("notes/c.md")).toBe("written by a plugin");

    // Called with no workspace (as a job without a caller would be), and a plugin that declares none: refused.
    expect((await callTool("notes", "read_note", { path: "notes/a.md" })).text).toMatch(/refused: This call was not given access to the workspace/);
    await configure(cookie, "misbehaving", { reportUrl: fixtureUrl });
    await enable(cookie, "misbehaving");
    const undeclared = await pluginHostFromEnvironment()!.call({
      pluginId: "misbehaving",
      tool: "read_workspace",
      input: { path: "notes/a.md" },
      context: { userId: owner.user.id, sessionId },
      timeoutMs: 10_000,
      workspace: "write",
      onWorkspace: async () => ({ ok: true, value: { text: "should never be asked" } }),
    });
    expect(undeclared.text).toMatch(/does not declare workspace access.*refused/);
    await enable(cookie, "misbehaving", false);
    await enable(cookie, "notes", false);
  });

  it("stages an uploaded plugin with its report and runs exactly the reviewed SHA-256 once enabled", async () => {
    const { cookie } = await admin();
    const manifest = { id: "uploaded-echo", name: "Uploaded echo", version: "1.0.0", entry: "index.js", configSchema: { type: "object", properties: {} }, contracts: { tools: ["say"] } };
    const code = 'export default { register(api) { api.registerTool({ name: "say", description: "Say it.", input: { type: "object", properties: { text: { type: "string" } } }, risk: "read", execute: (input) => "said " + input.text }); } };\n';
    const archive = buildZip([{ name: "uploaded-echo/openclaw.plugin.json", data: JSON.stringify(manifest) }, { name: "uploaded-echo/index.js", data: code }]);
    const response = await uploadPlugin(multipartRequest(`${ORIGIN}/api/admin/plugins`, [{ name: "uploaded-echo.zip", data: archive }], { cookie, origin: ORIGIN }), { params: Promise.resolve({}) as Promise<never> });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ status: "staged", id: "uploaded-echo", report: { verdict: "clean", fileCount: 2 } });
    expect(body.sha256).toMatch(/^[0-9a-f]{64}$/);

    const listed = await call(listPlugins, "/api/admin/plugins", { cookie });
    expect((listed.json.plugins as { id: string; status: string }[]).find((plugin) => plugin.id === "uploaded-echo")?.status).toBe("staged");
    expect((await enable(cookie, "uploaded-echo", true, { sha256: "0".repeat(64) })).status).toBe(409);
    const enabled = await enable(cookie, "uploaded-echo", true, { sha256: body.sha256 });
    expect(enabled.json.plugin).toMatchObject({ status: "running", sha256: body.sha256 });
    expect((await callTool("uploaded-echo", "say", { text: "hi" })).text).toBe("said hi");

    // Files changed on disk after review: the pinned hash no longer matches, so the code never starts again.
    const plugin = await db().plugin.findUniqueOrThrow({ where: { id: "uploaded-echo" } });
    await writeFile(path.join(plugin.directory, "index.js"), code.replace("said ", "tampered "));
    await enable(cookie, "uploaded-echo", false);
    const again = await enable(cookie, "uploaded-echo", true);
    expect(again.json.plugin.status).toBe("failed");
    expect(again.json.plugin.lastError).toMatch(/changed after review/);
  });
});

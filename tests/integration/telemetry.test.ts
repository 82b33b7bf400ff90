import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { resetEnvironment } from "@/lib/config/environment";
import type { TNodeRoute } from "@/lib/http/server-hook";
import { defineJob, type TStepTools } from "@/lib/jobs/define-job";
import { withChannelSpans } from "@/lib/telemetry/channel-spans";
import { withJobSpans } from "@/lib/telemetry/job-spans";
import { decideApproval } from "@/lib/runs/decide-approval";
import { startRun } from "@/lib/runs/start-run";
import { waitForRun } from "@/lib/runs/local-runs";
import { createSession } from "@/lib/sessions/sessions";
import { installTelemetry } from "@/lib/telemetry/install-telemetry";
import { startTracing, stopTracing, tracingFromEnvironment } from "@/lib/telemetry/tracing";
import { defineTool, ToolRegistry, type TChildRunResult } from "@/lib/tools/registry";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";

/**
 * Metrics and traces over real runs (scripted model, real database): the GenAI spans of a run with
 * one tool and one sub-agent, the Prometheus text after it, who may read /api/metrics, and OTLP
 * export to a real HTTP receiver.
 */
let fake: TFakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
  await stopTracing();
  installTelemetry();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
  delete process.env.METRICS_TOKEN;
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  resetEnvironment();
});

const SECRET_TASK = "count the files in the secret folder";
const SECRET_MESSAGE = "ask the helper about my private notes";

/** A parent run whose tool starts a sub-agent; resolves when both have ended. */
async function runWithSubAgent() {
  const { user } = await createUser();
  const parent = await createSession({ userId: user.id });
  let child: TChildRunResult | undefined;
  const delegate = defineTool({
    name: "ask_helper",
    description: "asks a helper",
    input: z.object({ task: z.string() }),
    risk: "read",
    async execute({ task }, context) {
      child = await context.startChildRun!({ task, title: "Helper" });
      return `helper said: ${child.text}`;
    },
  });
  fake.script((request) => {
    const last = request.body.messages.at(-1);
    if (last.role === "user" && last.content === SECRET_TASK) return { text: "There are 3 files." };
    if (last.role === "tool") return { text: "The helper counted 3.", usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 30 } };
    return { toolCalls: [{ name: "ask_helper", arguments: { task: SECRET_TASK } }] };
  });
  await startRun({ session: { id: parent.id, userId: user.id }, input: { kind: "message", text: SECRET_MESSAGE }, tools: new ToolRegistry().register(delegate) });
  const outcome = await waitForRun(parent.id);
  expect(outcome).toMatchObject({ status: "completed" });
  return { user, parentSessionId: parent.id, childSessionId: child!.sessionId };
}

function spanId(span: ReadableSpan) {
  return span.spanContext().spanId;
}

describe("traces", { timeout: 90_000 }, () => {
  it("names the spans of a run with one tool and one sub-agent by the GenAI conventions, nested, without content", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: "xclaw-test", captureContent: false });
    installTelemetry({ tracing });
    const { user, parentSessionId, childSessionId } = await runWithSubAgent();
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name);

    const agents = byName("invoke_agent xclaw");
    expect(agents).toHaveLength(2);
    const parentRun = agents.find((span) => span.attributes["gen_ai.conversation.id"] === parentSessionId)!;
    const childRun = agents.find((span) => span.attributes["gen_ai.conversation.id"] === childSessionId)!;
    expect(parentRun.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "xclaw.run.trigger": "web", "xclaw.run.status": "completed" });
    expect(childRun.attributes).toMatchObject({ "xclaw.run.trigger": "agent", "xclaw.run.depth": 1 });

    const [tool] = byName("execute_tool ask_helper");
    expect(tool).toBeDefined();
    expect(tool!.parentSpanContext?.spanId).toBe(spanId(parentRun));
    expect(tool!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ask_helper", "xclaw.tool.outcome": "ok" });
    // The sub-agent's run hangs under the tool call that started it, in the same trace.
    expect(childRun.parentSpanContext?.spanId).toBe(spanId(tool!));
    expect(childRun.spanContext().traceId).toBe(parentRun.spanContext().traceId);

    const chats = spans.filter((span) => span.name.startsWith("chat "));
    expect(chats).toHaveLength(3);
    expect(chats.filter((span) => span.parentSpanContext?.spanId === spanId(parentRun))).toHaveLength(2);
    expect(chats.filter((span) => span.parentSpanContext?.spanId === spanId(childRun))).toHaveLength(1);
    for (const chat of chats) {
      expect(chat.kind).toBe(2); // SpanKind.CLIENT
      expect(chat.name).toBe(`chat ${chat.attributes["gen_ai.request.model"]}`);
      expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai" });
      expect(typeof chat.attributes["gen_ai.response.model"]).toBe("string");
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toEqual(expect.any(Number));
      expect(chat.attributes["gen_ai.response.finish_reasons"]).toEqual([expect.stringMatching(/^(stop|tool_call)$/)]);
      expect([parentSessionId, childSessionId]).toContain(chat.attributes["gen_ai.conversation.id"]);
    }
    expect(chats.filter((span) => (span.attributes["gen_ai.response.finish_reasons"] as string[])[0] === "tool_call")).toHaveLength(1);
    const cached = chats.filter((span) => span.attributes["gen_ai.usage.cache_read.input_tokens"] !== undefined);
    expect(cached.map((span) => [span.attributes["gen_ai.usage.input_tokens"], span.attributes["gen_ai.usage.cache_read.input_tokens"]])).toEqual([[50, 30]]);

    // Content stays out unless an administrator turns it on; so do user ids.
    const everything = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    for (const word of [SECRET_MESSAGE, SECRET_TASK, "There are 3 files", user.id, user.email]) expect(everything).not.toContain(word);
  });

  it("hangs a run under the job span or the channel request span it started in", async () => {
    const exporter = new InMemorySpanExporter();
    installTelemetry({ tracing: startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: "xclaw-test", captureContent: false }) });
    fake.script(() => ({ text: "done" }));
    const { user } = await createUser();
    const runIn = async () => {
      const session = await createSession({ userId: user.id });
      await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "prompt", text: "go" }, trigger: "job" });
      await waitForRun(session.id);
      return session.id;
    };
    let jobSessionId = "";
    const [job] = withJobSpans([
      defineJob({ id: "test.telemetry", trigger: { event: "test/telemetry" }, schema: z.object({}), retries: 0 }, async () => {
        jobSessionId = await runIn();
      }),
    ]);
    await job!.handler({ event: { id: "event-1", name: "test/telemetry", data: {} }, step: {} as TStepTools, signal: new AbortController().signal, attempt: 0, runId: "job-run-1" });

    let channelSessionId = "";
    const hook: TNodeRoute = async (_incoming, outgoing) => {
      channelSessionId = await runIn();
      outgoing.writeHead(200).end();
    };
    const routes = withChannelSpans({ "POST /hook": hook }, "web");
    const server = createServer((incoming, outgoing) => void routes["POST /hook"]!(incoming, outgoing));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      expect((await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, { method: "POST" })).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }

    const spans = exporter.getFinishedSpans();
    const runOf = (sessionId: string) => spans.find((span) => span.name === "invoke_agent xclaw" && span.attributes["gen_ai.conversation.id"] === sessionId)!;
    const jobSpan = spans.find((span) => span.name === "job test.telemetry")!;
    expect(jobSpan.attributes).toMatchObject({ "xclaw.job.id": "test.telemetry", "xclaw.job.run_id": "job-run-1" });
    expect(runOf(jobSessionId).parentSpanContext?.spanId).toBe(spanId(jobSpan));
    const channelSpan = spans.find((span) => span.name === "POST /hook")!;
    expect(channelSpan.attributes).toMatchObject({ "xclaw.channel": "web", "http.response.status_code": 200 });
    expect(runOf(channelSessionId).parentSpanContext?.spanId).toBe(spanId(channelSpan));
  });

  it("marks the wait for an approval on the tool call's span, and the call that ran after the decision", async () => {
    const exporter = new InMemorySpanExporter();
    installTelemetry({ tracing: startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: "xclaw-test", captureContent: false }) });
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    const tools = new ToolRegistry().register(defineTool({ name: "save_note", description: "saves", input: z.object({}), risk: "write", execute: async () => "saved" }));
    fake.script([{ toolCalls: [{ name: "save_note", arguments: {} }] }, { text: "Saved." }]);
    await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "save it" }, tools });
    expect(await waitForRun(session.id)).toMatchObject({ status: "paused" });
    const [waited] = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool save_note");
    expect(waited!.attributes["xclaw.tool.outcome"]).toBe("awaiting_approval");
    const requested = waited!.events.find((event) => event.name === "xclaw.approval.requested");
    expect(requested?.attributes).toMatchObject({ "xclaw.approval.risk": "write" });
    expect(exporter.getFinishedSpans().find((span) => span.name === "invoke_agent xclaw")!.attributes["xclaw.run.status"]).toBe("paused");

    const decided = await decideApproval({ userId: user.id, sessionId: session.id, approvalId: requested!.attributes!["xclaw.approval.id"] as string, decision: "approve", tools });
    expect(decided.kind).toBe("run");
    expect(await waitForRun(session.id)).toMatchObject({ status: "completed" });
    const ran = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool save_note");
    expect(ran).toHaveLength(2);
    expect(ran[1]!.attributes["xclaw.tool.outcome"]).toBe("ok");
    expect(ran[1]!.events.map((event) => event.name)).toEqual(["xclaw.approval.decided"]);
    const runs = exporter.getFinishedSpans().filter((span) => span.name === "invoke_agent xclaw");
    expect(runs.map((span) => span.attributes["xclaw.run.input"])).toEqual(["message", "approval"]);
  });

  it("puts message content in spans when an administrator turns it on", async () => {
    const exporter = new InMemorySpanExporter();
    installTelemetry({ tracing: startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: "xclaw-test", captureContent: true }) });
    await runWithSubAgent();
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((span) => span.name === "execute_tool ask_helper")!;
    expect(JSON.parse(tool.attributes["gen_ai.tool.call.arguments"] as string)).toEqual({ task: SECRET_TASK });
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe("helper said: There are 3 files.");
    expect(spans.some((span) => String(span.attributes["gen_ai.output.messages"] ?? "").includes("The helper counted 3."))).toBe(true);
  });

  it("exports spans over OTLP/HTTP to the collector OTEL_EXPORTER_OTLP_ENDPOINT names", async () => {
    const received: { path: string; contentType: string; body: Buffer }[] = [];
    const receiver: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      resetEnvironment();
      await stopTracing();
      const tracing = tracingFromEnvironment();
      expect(tracing).toBeDefined();
      installTelemetry({ tracing });
      const { parentSessionId } = await runWithSubAgent();
      await stopTracing(); // flushes the batch
      expect(received.length).toBeGreaterThan(0);
      expect(received.every((request) => request.path === "/v1/traces")).toBe(true);
      expect(received[0]!.contentType).toMatch(/^application\/json/);
      type TExport = { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] };
      const exports = received.map((request) => JSON.parse(request.body.toString("utf8")) as TExport);
      const spans = exports.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
      const names = spans.map((span) => span.name);
      expect(names.filter((name) => name === "invoke_agent xclaw")).toHaveLength(2);
      expect(names).toContain("execute_tool ask_helper");
      expect(names.filter((name) => name.startsWith("chat "))).toHaveLength(3);
      const root = spans.find((span) => span.name === "invoke_agent xclaw" && span.attributes.some((attribute) => attribute.key === "gen_ai.conversation.id" && attribute.value.stringValue === parentSessionId));
      expect(root).toBeDefined();
      const service = exports[0]!.resourceSpans[0]!.resource.attributes.find((attribute) => attribute.key === "service.name");
      expect(service?.value.stringValue).toBe("xclaw");
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

type TSample = { name: string; labels: Record<string, string>; value: number };

/** The Prometheus text format's samples (comments skipped). */
function parsePrometheus(text: string): TSample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1]!, pair[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe("metrics", { timeout: 90_000 }, () => {
  it("counts a run's model calls, tokens, tool call and end, with no user id or free text in any label", async () => {
    installTelemetry();
    const { user, parentSessionId, childSessionId } = await runWithSubAgent();
    const admin = await createUser({ role: "ADMIN" });
    const response = await call(metricsRoute, "/api/metrics", { cookie: admin.cookie });
    expect(response.status).toBe(200);
    const samples = parsePrometheus(response.json as string);
    const find = (name: string, labels: Record<string, string> = {}) => samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
    const total = (name: string, labels: Record<string, string> = {}) => find(name, labels).reduce((sum, sample) => sum + sample.value, 0);

    expect(total("gen_ai_client_operation_duration_seconds_count", { gen_ai_operation_name: "chat", gen_ai_provider_name: "openai" })).toBeGreaterThanOrEqual(3);
    expect(total("gen_ai_client_token_usage_count", { gen_ai_token_type: "input" })).toBeGreaterThanOrEqual(3);
    expect(total("gen_ai_client_token_usage_count", { gen_ai_token_type: "output" })).toBeGreaterThanOrEqual(3);
    expect(total("gen_ai_client_token_usage_sum", { gen_ai_token_type: "cache_read" })).toBeGreaterThanOrEqual(30);
    expect(total("gen_ai_client_operation_time_to_first_chunk_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(total("xclaw_tool_duration_seconds_count", { tool: "ask_helper", outcome: "ok" })).toBeGreaterThanOrEqual(1);
    expect(total("xclaw_runs_total", { trigger: "web", status: "completed" })).toBeGreaterThanOrEqual(1);
    expect(total("xclaw_runs_total", { trigger: "agent", status: "completed" })).toBeGreaterThanOrEqual(1);
    for (const name of ["xclaw_approvals_waiting", "xclaw_job_queue_depth", "xclaw_job_queue_lag_seconds", "xclaw_db_pool_waiting", "nodejs_eventloop_lag_seconds", "process_resident_memory_bytes"]) {
      expect(find(name), name).toHaveLength(1);
    }

    const labelValues = samples.flatMap((sample) => Object.values(sample.labels));
    for (const secret of [user.id, admin.user.id, user.email, parentSessionId, childSessionId, SECRET_MESSAGE, SECRET_TASK]) {
      expect(labelValues.filter((value) => value.includes(secret))).toEqual([]);
    }
  });

  it("answers an administrator or the METRICS_TOKEN bearer in Prometheus text, 401 without credentials, 403 for others", async () => {
    installTelemetry();
    const admin = await createUser({ role: "ADMIN" });
    const member = await createUser();
    const asAdmin = await call(metricsRoute, "/api/metrics", { cookie: admin.cookie });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${admin.token}` } })).status).toBe(200);
    expect((await call(metricsRoute, "/api/metrics")).status).toBe(401);
    expect((await call(metricsRoute, "/api/metrics", { cookie: member.cookie })).status).toBe(403);
    expect((await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${member.token}` } })).status).toBe(403);

    const metricsToken = "scrape-token-0123456789abcdef";
    // Without METRICS_TOKEN set, that bearer is nobody.
    expect((await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(401);
    process.env.METRICS_TOKEN = metricsToken;
    resetEnvironment();
    const scraped = await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.json as string).toContain("# TYPE gen_ai_client_operation_duration_seconds histogram");
    expect((await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${metricsToken}x` } })).status).toBe(401);
    expect((await call(metricsRoute, "/api/metrics", { headers: { authorization: `Bearer ${metricsToken.slice(0, -1)}` } })).status).toBe(401);
  });
});

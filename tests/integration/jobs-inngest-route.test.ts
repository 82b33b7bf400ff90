import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { jobCatalog } from "@/lib/app/job-catalog";
import { resetEnvironment } from "@/lib/config/environment";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { call } from "../support/http";

/**
 * /api/inngest is the SDK's serve handler. Inngest itself is not reachable here, so a small fake
 * stands in for the Inngest server (it receives the app's sync request), and POSTs are signed by
 * hand the way Inngest signs them (HMAC-SHA256 over the canonical JSON body and a timestamp, keyed
 * with the signing key without its "signkey-…-" prefix).
 */
const SIGNING_KEY = `signkey-test-${randomBytes(32).toString("hex")}`;
const ENV_KEYS = ["INNGEST_DEV", "INNGEST_SIGNING_KEY", "INNGEST_BASE_URL", "INNGEST_EVENT_KEY", "XCLAW_CONFIG"] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

let fake: Server;
let fakeUrl: string;
const received: { path: string; body: unknown }[] = [];
let inngestConfig: string;

beforeAll(async () => {
  fake = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    received.push({ path: request.url ?? "", body: text ? JSON.parse(text) : undefined });
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, modified: true }));
  });
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-inngest-"));
  inngestConfig = path.join(directory, "xclaw.yaml");
  await writeFile(inngestConfig, "jobs:\n  runner: inngest\n");
});

afterEach(() => {
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  resetEnvironment();
});

afterAll(async () => {
  await new Promise((resolve) => fake.close(resolve));
});

/** The route module as a fresh process would load it with this environment. */
async function loadRoute(env: Partial<Record<(typeof ENV_KEYS)[number], string>>) {
  for (const key of ENV_KEYS) delete process.env[key];
  Object.assign(process.env, env);
  resetEnvironment();
  vi.resetModules();
  return import("@/app/api/inngest/route");
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A GET has no body: the SDK signs the empty string. */
function sign(body: unknown, key: string): string {
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const data = typeof body === "string" ? body : canonical(body);
  const signature = createHmac("sha256", key.replace(/^signkey-\w+-/, "")).update(data + timestamp).digest("hex");
  return `t=${timestamp}&s=${signature}`;
}

/** What Inngest POSTs to run a function: the event, the memoized steps so far (none), the run. */
const runRequest = {
  version: 1,
  event: { name: "inngest/scheduled.timer", data: { cron: "TZ=UTC 17 * * * *" }, id: "01TEST", ts: 1_700_000_000_000 },
  events: [{ name: "inngest/scheduled.timer", data: { cron: "TZ=UTC 17 * * * *" }, id: "01TEST", ts: 1_700_000_000_000 }],
  steps: {},
  ctx: { run_id: "01RUN", attempt: 0, disable_immediate_execution: false, use_api: false, stack: { stack: [], current: 0 } },
};
const runPath = "/api/inngest?fnId=xclaw-rate-limits.prune&stepId=step";

describe("/api/inngest", () => {
  it("is off while jobs run on the embedded runner", async () => {
    const { GET, POST } = await loadRoute({ INNGEST_DEV: "1" });
    const response = await call(GET, "/api/inngest");
    expect(response.status).toBe(404);
    expect(response.json.error.message).toContain("jobs.runner: local");
    expect((await call(POST, runPath, { body: runRequest })).status).toBe(404);
  });

  it("GET introspects and PUT syncs every catalog job with its trigger, retries and limits (dev server)", async () => {
    const { GET, PUT } = await loadRoute({ XCLAW_CONFIG: inngestConfig, INNGEST_DEV: fakeUrl });
    const introspection = await call(GET, "/api/inngest");
    expect(introspection.status).toBe(200);
    expect(introspection.json).toMatchObject({ mode: "dev", function_count: jobCatalog.length });

    received.length = 0;
    const sync = await call(PUT, "/api/inngest", { body: {} });
    expect(sync.status).toBe(200);
    const registration = received.find((request) => request.path.startsWith("/fn/register"));
    expect(registration).toBeDefined();
    const functions = (registration!.body as { appName: string; functions: { id: string; triggers: unknown[]; steps: Record<string, { retries?: { attempts: number } }>; singleton?: unknown }[] });
    expect(functions.appName).toBe("xclaw");
    const prune = functions.functions.find((fn) => fn.id === "xclaw-rate-limits.prune");
    expect(prune?.triggers).toEqual([{ cron: "TZ=UTC 17 * * * *" }]);
    expect(prune?.singleton).toEqual({ mode: "skip" });
    expect(Object.values(prune!.steps)[0]?.retries).toEqual({ attempts: 2 });
    expect(functions.functions.map((fn) => fn.id).sort()).toEqual(jobCatalog.map((job) => `xclaw-${job.id}`).sort());
  });

  describe("with INNGEST_SIGNING_KEY (cloud mode)", () => {
    const env = () => ({ XCLAW_CONFIG: inngestConfig, INNGEST_SIGNING_KEY: SIGNING_KEY, INNGEST_BASE_URL: fakeUrl });

    it("refuses an unsigned POST", async () => {
      const { POST } = await loadRoute(env());
      const response = await call(POST, runPath, { body: runRequest });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ message: "Unauthorized" });
    });

    it("refuses a POST signed with another key, or with a signature for another body", async () => {
      const { POST } = await loadRoute(env());
      const otherKey = `signkey-test-${randomBytes(32).toString("hex")}`;
      const wrongKey = await call(POST, runPath, { body: runRequest, headers: { "x-inngest-signature": sign(runRequest, otherKey) } });
      expect(wrongKey.status).toBe(401);
      const tampered = { ...runRequest, event: { ...runRequest.event, data: { cron: "changed" } } };
      const wrongBody = await call(POST, runPath, { body: tampered, headers: { "x-inngest-signature": sign(runRequest, SIGNING_KEY) } });
      expect(wrongBody.status).toBe(401);
    });

    it("runs the job's step for a correctly signed POST (the refusals above are about the signature)", async () => {
      await db().rateLimitBucket.create({ data: { key: "sign-in:ip:192.0.2.1", count: 3, windowStart: new Date(Date.now() - 3 * 24 * 3600 * 1000) } });
      const { POST } = await loadRoute(env());
      const response = await call(POST, runPath, { body: runRequest, headers: { "x-inngest-signature": sign(runRequest, SIGNING_KEY) } });
      expect(response.status).toBe(206);
      expect(response.json).toEqual([expect.objectContaining({ op: "StepRun", name: "delete-expired-buckets", data: 1 })]);
      expect(await db().rateLimitBucket.count({ where: { key: "sign-in:ip:192.0.2.1" } })).toBe(0);
    });

    it("answers GET introspection only to a signed caller", async () => {
      const { GET } = await loadRoute(env());
      expect(await call(GET, "/api/inngest")).toMatchObject({ status: 401, json: { message: "Unauthorized" } });
      const signed = await call(GET, "/api/inngest", { headers: { "x-inngest-signature": sign("", SIGNING_KEY) } });
      expect(signed.status).toBe(200);
      expect(signed.json).toMatchObject({ mode: "cloud", function_count: jobCatalog.length, has_signing_key: true, authentication_succeeded: true });
    });
  });
});

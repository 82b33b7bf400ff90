/**
 * `npm run test:e2e`: builds the app, and for each database (the embedded PGlite, plus PostgreSQL
 * when TEST_DATABASE_URL is set) starts it exactly as `npm start` does on a fresh data directory
 * and a free port, waits for /api/health, runs the Playwright tests in Chromium, and stops it.
 * The full suite runs on PGlite; on PostgreSQL the specs tagged @database.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseDocument } from "yaml";
import { startFakeLlm } from "../fake-llm/server";
import { startBrowserSite } from "../fixtures/browser-site/server";
import { findChromium, noChromiumMessage } from "./chromium";
import { freePort } from "../../lib/net/free-port";

const root = path.resolve(import.meta.dirname, "..", "..");

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: "inherit" });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}


async function waitForHealth(url: string, server: ChildProcess, seconds: number) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the app exited with code ${server.exitCode} before it was ready`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the app did not answer /api/health within ${seconds} s`);
}

async function stopServer(server: ChildProcess) {
  if (server.exitCode !== null || !server.pid) return;
  const exited = new Promise((resolve) => server.on("exit", resolve));
  process.kill(-server.pid, "SIGTERM");
  const timer = setTimeout(() => server.pid && process.kill(-server.pid, "SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `xclaw_e2e_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

async function runAgainst(database: "pglite" | "postgres", chromium: string, extraArgs: string[]): Promise<number> {
  const dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-e2e-"));
  const port = await freePort();
  // The model: a fake LLM server the tests script over HTTP (tests/fake-llm/README.md).
  const fake = await startFakeLlm();
  // The web site the browser tools visit (tests/fixtures/browser-site): on 127.0.0.1, so the app's
  // xclaw.yaml gets a copy that allow-lists exactly its host and port.
  const site = await startBrowserSite();
  const config = parseDocument(await readFile(process.env.XCLAW_CONFIG ?? path.join(root, "xclaw.yaml"), "utf8"));
  config.setIn(["browser", "allowedPrivateHosts"], [site.host]);
  // A second model for the model picker's test; the fake answers whatever model is asked for.
  config.setIn(["providers", "openai", "models"], ["gpt-4o"]);
  // Title summaries would take replies from the scripted model between a test's own requests
  // (tests/integration/chat-sessions.test.ts covers them).
  config.setIn(["chat", "summarizeTitles"], false);
  // Every spec signs up its own accounts, all from 127.0.0.1: the suite creates more than the
  // default per-address limit allows in an hour (tests/integration/http-wire.test.ts covers it).
  config.setIn(["auth", "registrationRateLimit", "perIp", "maxAttempts"], 1000);
  const configFile = path.join(dataDirectory, "xclaw.yaml");
  await writeFile(configFile, String(config));
  const baseUrl = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    XCLAW_DATA_DIR: dataDirectory,
    NEXTAUTH_URL: baseUrl,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    OPENAI_BASE_URL: fake.openaiBaseUrl,
    OPENAI_API_KEY: "e2e-key",
    XCLAW_PROVIDERS: "openai",
    XCLAW_CONFIG: configFile,
    CHROMIUM_PATH: chromium,
    // A production start refuses to run without a strong secret of its own.
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  delete env.BROWSER_WORKER_URL;
  delete env.BROWSER_WORKER_SECRET;
  let postgres: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
  if (database === "postgres") {
    postgres = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    env.DATABASE_URL = postgres.url;
    const migrated = await run(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], env);
    if (migrated !== 0) return migrated;
  } else {
    delete env.DATABASE_URL;
  }
  process.stdout.write(`\ne2e (${database}): starting the app on ${baseUrl}\n`);
  const server = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "start"], { cwd: root, env, stdio: "inherit", detached: true });
  try {
    // A ceiling, not a wait: on a busy machine creating and migrating the embedded database alone
    // has taken 50 s, and the workers and Next.js start after it.
    await waitForHealth(baseUrl, server, 300);
    return await run(process.execPath, [path.join(root, "node_modules", "@playwright/test", "cli.js"), "test", ...extraArgs], {
      ...env,
      E2E_BASE_URL: baseUrl,
      E2E_DATABASE: database,
      E2E_FAKE_LLM_URL: fake.url,
      E2E_DATA_DIR: dataDirectory,
      E2E_BROWSER_SITE_URL: site.url,
      CHROMIUM_PATH: chromium,
    });
  } catch (error) {
    process.stderr.write(`e2e (${database}): ${(error as Error).message}\n`);
    return 1;
  } finally {
    await stopServer(server);
    await fake.close();
    await site.close();
    await postgres?.drop().catch(() => {});
    await rm(dataDirectory, { recursive: true, force: true });
  }
}

async function main() {
  const chromium = await findChromium();
  if (!chromium) {
    process.stderr.write(`${noChromiumMessage("the end-to-end tests")}\n`);
    process.exit(1);
  }
  if (process.env.XCLAW_E2E_SKIP_BUILD !== "1") {
    // The build script itself, so the tests run what `npm start` and the image run (a copy of its
    // steps here once drifted: a bare `next build` left the pages without their scripts).
    const built = await run("npm", ["run", "build"], { ...process.env, NEXT_TELEMETRY_DISABLED: "1" });
    if (built !== 0) process.exit(built);
  }
  const extraArgs = process.argv.slice(2);
  const databases: ("pglite" | "postgres")[] = ["pglite", ...(process.env.TEST_DATABASE_URL ? (["postgres"] as const) : [])];
  let failed = 0;
  // The whole suite runs on the embedded database (the default install); on PostgreSQL only the
  // specs tagged @database, which depend on the database (XCLAW_E2E_ALL_DATABASES=1 runs all twice).
  for (const database of databases) {
    const args = database === "postgres" && process.env.XCLAW_E2E_ALL_DATABASES !== "1" && !extraArgs.length ? ["--grep", "@database"] : extraArgs;
    if ((await runAgainst(database, chromium, args)) !== 0) failed++;
  }
  process.exit(failed ? 1 : 0);
}

void main();

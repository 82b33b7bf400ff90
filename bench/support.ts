import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "../lib/net/free-port";

export { freePort };

/** Shared by the benchmarks: start the built app like `npm start`, sign in, percentiles. */
export const root = path.resolve(import.meta.dirname, "..");

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}


export async function startApp(env: Record<string, string>): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build` first");
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-bench-"));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "start"], {
    cwd: root,
    // A production start needs a strong secret: a fresh one unless the benchmark gives its own.
    env: { ...process.env, NEXTAUTH_SECRET: randomBytes(32).toString("base64url"), ...env, PORT: String(port), XCLAW_DATA_DIR: dataDirectory, NEXTAUTH_URL: url, LOG_LEVEL: "error" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.pid && child.exitCode === null) {
        const exited = new Promise((resolve) => child.on("exit", resolve));
        process.kill(-child.pid, "SIGTERM");
        await exited;
      }
    },
  };
}

/** Registers a user, signs in through next-auth like a browser, and returns an API token. */
export async function createApiToken(url: string, email = `bench-${Date.now()}@example.com`): Promise<string> {
  const password = "bench-password-1";
  const registered = await fetch(`${url}/api/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const csrf = await fetch(`${url}/api/auth/csrf`);
  const csrfCookie = (csrf.headers.getSetCookie?.() ?? []).map((cookie) => cookie.split(";")[0]).join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await fetch(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = (signIn.headers.getSetCookie?.() ?? []).map((cookie) => cookie.split(";")[0]).find((cookie) => cookie?.includes("session-token"));
  if (!session) throw new Error("sign-in failed in the benchmark");
  const created = await fetch(`${url}/api/tokens`, { method: "POST", headers: { "content-type": "application/json", cookie: session, origin: url }, body: JSON.stringify({ name: "bench" }) });
  return ((await created.json()) as { token: string }).token;
}

/** A fresh, migrated PostgreSQL database made from an admin URL, dropped by `drop`. */
export async function createScratchPostgres(adminUrl: string, prefix: string): Promise<{ url: string; version: string; drop: () => Promise<void> }> {
  const { default: pg } = await import("pg");
  const { migrateDatabase } = await import("../lib/db/migrate");
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const version = String((await admin.query("SHOW server_version")).rows[0].server_version);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  return {
    url: url.toString(),
    version,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * The database an app benchmark (one that starts the built app) runs on: the embedded PGlite by
 * default; with BENCH_POSTGRES_URL set to an admin URL (e.g.
 * postgresql://postgres@127.0.0.1:5432/postgres), a fresh migrated PostgreSQL database that is
 * dropped afterwards.
 */
export async function benchDatabase(): Promise<{ name: string; env: Record<string, string>; drop: () => Promise<void> }> {
  const adminUrl = process.env.BENCH_POSTGRES_URL;
  if (!adminUrl) return { name: "pglite (embedded)", env: {}, drop: async () => {} };
  const scratch = await createScratchPostgres(adminUrl, "xclaw_bench");
  return { name: "postgres", env: { DATABASE_URL: scratch.url }, drop: scratch.drop };
}

/**
 * For the in-process benchmarks (jobs, memory, agents): runs `measure` with this process's
 * database pointed at a fresh embedded PGlite, then at a fresh PostgreSQL database when
 * BENCH_POSTGRES_URL or TEST_DATABASE_URL names a server (skipped with a note otherwise).
 */
export async function onEachDatabase<T>(
  prefix: string,
  measure: (label: string, database: "pglite" | "postgres") => Promise<T>,
  options: { postgresFirst?: boolean; skip?: { pglite?: boolean; postgres?: boolean } } = {},
): Promise<{ pglite?: T; postgres?: T }> {
  const { startEmbeddedDatabase } = await import("../lib/db/embedded");
  const { migrateDatabase } = await import("../lib/db/migrate");
  const { disconnectDatabase } = await import("../lib/db/client");
  // The app reads its environment once per process: tell it each time DATABASE_URL changes here.
  const { resetEnvironment } = await import("../lib/config/environment");
  const results: { pglite?: T; postgres?: T } = {};
  const onPglite = async () => {
    if (options.skip?.pglite) return;
    const embedded = await startEmbeddedDatabase({});
    await migrateDatabase(embedded.url);
    process.env.DATABASE_URL = embedded.url;
    process.env.XCLAW_EMBEDDED_DATABASE_URL = embedded.url;
    resetEnvironment();
    try {
      results.pglite = await measure("embedded PGlite (one connection)", "pglite");
    } finally {
      await disconnectDatabase();
      delete process.env.XCLAW_EMBEDDED_DATABASE_URL;
      resetEnvironment();
      await embedded.stop();
    }
  };
  const onPostgres = async () => {
    if (options.skip?.postgres) return;
    const adminUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_DATABASE_URL;
    if (!adminUrl) {
      console.log("\n(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_DATABASE_URL to a superuser URL, e.g. postgresql://postgres@127.0.0.1:5432/postgres)");
      return;
    }
    const scratch = await createScratchPostgres(adminUrl, prefix);
    process.env.DATABASE_URL = scratch.url;
    resetEnvironment();
    try {
      results.postgres = await measure(`PostgreSQL ${scratch.version}`, "postgres");
    } finally {
      await disconnectDatabase();
      await scratch.drop();
    }
  };
  for (const run of options.postgresFirst ? [onPostgres, onPglite] : [onPglite, onPostgres]) await run();
  return results;
}

/** Starts bench/fake-llm-process.ts and returns its URL and a stop function. */
export async function startFakeLlmProcess(): Promise<{ url: string; openaiBaseUrl: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/fake-llm-process.ts"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split("\n")[0];
      if (buffer.includes("\n") && line) resolve(line.trim());
    });
    child.on("exit", (code) => reject(new Error(`the fake LLM exited with code ${code}`)));
  });
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A copy of xclaw.yaml with some settings changed, for a benchmark's app; returns its path. */
export async function benchConfig(changes: [string[], unknown][]): Promise<string> {
  const { readFile, writeFile } = await import("node:fs/promises");
  const { parseDocument } = await import("yaml");
  const document = parseDocument(await readFile(path.join(root, "xclaw.yaml"), "utf8"));
  for (const [keyPath, value] of changes) document.setIn(keyPath, value);
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), "xclaw-bench-config-")), "xclaw.yaml");
  await writeFile(file, String(document));
  return file;
}

/** A process and all its descendants, from /proc (Linux). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  const all: number[] = [];
  const visit = (id: number) => {
    all.push(id);
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return all;
}

/** CPU seconds (user + system) a process tree has used so far, from /proc (Linux; clock ticks of 1/100 s). */
export function processTreeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const id of descendants(pid)) {
    try {
      const stat = readFileSync(`/proc/${id}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

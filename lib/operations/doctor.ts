import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { findChromium } from "@/lib/browser/chromium";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { authSecretProblem, environment, type TEnvironment } from "@/lib/config/environment";
import { readMigrations } from "@/lib/db/migrate";
import { createSandboxRuntime } from "@/lib/sandbox/runtime";

/**
 * `npm run xclaw -- doctor`: what an operator checks on an install, each check one line, every
 * problem with what to do about it. Run beside the app (it reads the same .env and xclaw.yaml); it
 * changes nothing. The embedded database is checked only when the app is stopped (it has one
 * owner at a time); with the app running, /api/health?ready=1 answers for it.
 */
export type TCheck = { name: string; ok: boolean; detail: string };

const PROBE_TIMEOUT_MS = 8_000;
/** Leases and job timing compare this process's clock with the database's. */
const MAX_CLOCK_SKEW_MS = 5_000;

async function databaseChecks(url: string, migrationsDirectory: string): Promise<TCheck[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    return [{ name: "database", ok: false, detail: `cannot connect to DATABASE_URL: ${(error as Error).message}` }];
  }
  try {
    const checks: TCheck[] = [];
    const [{ version, now }] = (await client.query<{ version: string; now: Date }>(`SELECT current_setting('server_version') AS version, now() AS now`)).rows as [{ version: string; now: Date }];
    checks.push({ name: "database", ok: true, detail: `PostgreSQL ${version}` });
    const skew = Math.abs(now.getTime() - Date.now());
    checks.push(
      skew > MAX_CLOCK_SKEW_MS
        ? { name: "clock", ok: false, detail: `this machine's clock is ${(skew / 1000).toFixed(1)} s away from the database's: run NTP (timedatectl set-ntp true) on both` }
        : { name: "clock", ok: true, detail: `within ${Math.round(skew)} ms of the database` },
    );
    const vector = (await client.query<{ installed: string | null; available: string | null }>(
      `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed, (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available`,
    )).rows[0]!;
    checks.push(
      vector.installed
        ? { name: "pgvector", ok: true, detail: `vector ${vector.installed}` }
        : vector.available
          ? { name: "pgvector", ok: false, detail: `pgvector ${vector.available} is on the server but not in this database: start the app once (it migrates) or run npm run db:migrate` }
          : { name: "pgvector", ok: false, detail: "pgvector is not installed on the database server: install it (Debian: postgresql-<version>-pgvector; Docker: pgvector/pgvector)" },
    );
    checks.push(await migrationCheck(client, migrationsDirectory));
    return checks;
  } finally {
    await client.end().catch(() => {});
  }
}

async function migrationCheck(client: pg.Client, directory: string): Promise<TCheck> {
  const known = (await readMigrations(directory)).map((migration) => migration.name);
  const table = (await client.query(`SELECT to_regclass('_prisma_migrations') AS name`)).rows[0]?.name;
  const rows = table
    ? (await client.query<{ migration_name: string; finished_at: Date | null }>(`SELECT migration_name, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`)).rows
    : [];
  const failed = rows.filter((row) => row.finished_at === null).map((row) => row.migration_name);
  if (failed.length) return { name: "migrations", ok: false, detail: `migration ${failed.join(", ")} failed and was not resolved (see docs/operations.md, "Migrations")` };
  const applied = new Set(rows.map((row) => row.migration_name));
  const ahead = [...applied].filter((name) => !known.includes(name));
  if (ahead.length) return { name: "migrations", ok: false, detail: `the database was migrated by a newer version (${ahead.join(", ")}): run that version, or restore the backup from before the upgrade` };
  const pending = known.filter((name) => !applied.has(name));
  if (pending.length) return { name: "migrations", ok: false, detail: `${pending.length} pending (${pending.join(", ")}): they are applied when the app starts, or now with npm run db:migrate` };
  return { name: "migrations", ok: true, detail: `${known.length} applied, none pending` };
}

async function embeddedDatabaseCheck(dataDirectory: string): Promise<TCheck[]> {
  const folder = path.join(dataDirectory, "pglite");
  if (!existsSync(folder)) return [{ name: "database", ok: true, detail: `embedded (PGlite), not created yet: the first start makes it in ${folder}` }];
  const owner = Number((await readFile(`${folder}.lock`, "utf8").catch(() => "")).trim());
  const running = owner > 0 && (() => {
    try {
      process.kill(owner, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  })();
  return [{ name: "database", ok: true, detail: running ? `embedded (PGlite), in use by the running app (process ${owner}): GET /api/health?ready=1 checks it` : `embedded (PGlite) in ${folder}, app stopped` }];
}

async function probe(url: string, headers: Record<string, string>): Promise<{ status?: number; error?: string }> {
  try {
    const response = await fetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: cause ?? (error as Error).name };
  }
}

/** Each configured provider's model list, with its key: reachable, and the key accepted. */
async function providerChecks(variables: TEnvironment): Promise<TCheck[]> {
  const targets: { name: string; url: string; headers: Record<string, string> }[] = [];
  if (variables.OPENAI_API_KEY || variables.OPENAI_BASE_URL) {
    const base = (variables.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    targets.push({ name: "provider openai", url: `${base}/models`, headers: variables.OPENAI_API_KEY ? { authorization: `Bearer ${variables.OPENAI_API_KEY}` } : {} });
  }
  if (variables.ANTHROPIC_API_KEY || variables.ANTHROPIC_BASE_URL) {
    const base = (variables.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com").replace(/\/+$/, "");
    targets.push({ name: "provider anthropic", url: `${base}/v1/models`, headers: { "x-api-key": variables.ANTHROPIC_API_KEY ?? "", "anthropic-version": "2023-06-01" } });
  }
  if (!targets.length) return [{ name: "providers", ok: false, detail: "no model provider is configured: set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY (README, \"Connect a model\")" }];
  return Promise.all(
    targets.map(async (target): Promise<TCheck> => {
      const host = new URL(target.url).host;
      const answer = await probe(target.url, target.headers);
      if (answer.error) return { name: target.name, ok: false, detail: `${host} is unreachable (${answer.error})` };
      if (answer.status === 401 || answer.status === 403) return { name: target.name, ok: false, detail: `${host} refused the API key (HTTP ${answer.status})` };
      if (answer.status! >= 500) return { name: target.name, ok: false, detail: `${host} answers HTTP ${answer.status}` };
      return { name: target.name, ok: true, detail: `${host} reachable` };
    }),
  );
}

async function browserCheck(variables: TEnvironment, config: TBehaviourConfig): Promise<TCheck> {
  if (config.browser.worker === "off") return { name: "browser", ok: true, detail: "browser tools are off (browser.worker: off)" };
  if (variables.BROWSER_WORKER_URL) {
    const answer = await probe(`${variables.BROWSER_WORKER_URL.replace(/\/+$/, "")}/v1/health`, variables.BROWSER_WORKER_SECRET ? { authorization: `Bearer ${variables.BROWSER_WORKER_SECRET}` } : {});
    if (answer.error || answer.status !== 200) return { name: "browser", ok: false, detail: `the browser worker at ${variables.BROWSER_WORKER_URL} does not answer (${answer.error ?? `HTTP ${answer.status}`})` };
    return { name: "browser", ok: true, detail: `worker at ${variables.BROWSER_WORKER_URL}` };
  }
  const chromium = findChromium();
  return chromium
    ? { name: "browser", ok: true, detail: `the launcher starts the worker with ${chromium}` }
    : { name: "browser", ok: false, detail: "no Chromium for the browser worker: apt-get install chromium, or set CHROMIUM_PATH, or browser.worker: off" };
}

function sandboxCheck(config: TBehaviourConfig): TCheck {
  const runtime = createSandboxRuntime(config);
  if (config.sandbox.mode === "none") return { name: "sandbox", ok: true, detail: "the shell is off (sandbox.mode: none)" };
  if (runtime.mode === "none") return { name: "sandbox", ok: false, detail: `sandbox.mode is ${config.sandbox.mode} but the shell is off: ${runtime.reason}` };
  const missing = runtime.enforcement?.notEnforced ?? [];
  return { name: "sandbox", ok: true, detail: `${runtime.mode}${missing.length ? ` (not enforced here: ${missing.join("; ")})` : ""}` };
}

export async function runDoctor(options: { production: boolean; migrationsDirectory: string }): Promise<TCheck[]> {
  const variables = environment();
  const config = getBehaviourConfig();
  const secret = authSecretProblem(variables.NEXTAUTH_SECRET, { production: options.production });
  const checks: TCheck[] = [
    secret
      ? { name: "secrets", ok: false, detail: secret }
      : { name: "secrets", ok: true, detail: variables.NEXTAUTH_SECRET ? "NEXTAUTH_SECRET set" : "NEXTAUTH_SECRET generated by npm run dev in the data directory" },
  ];
  const [database, providers, browser] = await Promise.all([
    variables.DATABASE_URL ? databaseChecks(variables.DATABASE_URL, options.migrationsDirectory) : embeddedDatabaseCheck(variables.XCLAW_DATA_DIR),
    providerChecks(variables),
    browserCheck(variables, config),
  ]);
  return [...checks, ...database, ...providers, browser, sandboxCheck(config)];
}

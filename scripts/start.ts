/**
 * `npm run dev` / `npm start`: validates the configuration, prepares cgroup v2 delegation for the
 * sandbox when the app's cgroup is delegated to it, starts the embedded database when no
 * DATABASE_URL is set (PGlite + pgvector under the data directory, served on a loopback port behind
 * a generated password, migrated), makes sure an auth secret exists (`npm start` refuses a
 * missing, short or example NEXTAUTH_SECRET; `npm run dev` generates one), says which sandbox limits
 * hold on this host, starts the browser worker (browser.worker: embedded, unless
 * BROWSER_WORKER_URL points at one), then runs Next.js with that environment. Ctrl-C stops
 * everything cleanly.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError, configPath, getBehaviourConfig } from "../lib/config/behaviour";
import { appPort, checkEnvironment, dataDirectory, environment, resetEnvironment } from "../lib/config/environment";
import { startEmbeddedDatabase, type TEmbeddedDatabase } from "../lib/db/embedded";
import { DatabaseAheadError, migrateDatabase } from "../lib/db/migrate";
import { providerStatus } from "../lib/providers/registry";
import { prepareCgroupDelegation } from "../lib/sandbox/cgroups";
import { createSandboxRuntime } from "../lib/sandbox/runtime";
import { spawnBrowserWorker, type TWorkerProcess } from "../workers/browser/spawn-worker";
import { spawnPluginHost, type THostProcess } from "../workers/plugins/spawn-host";
import nextEnv from "@next/env";

const mode = process.argv[2] === "start" ? "start" : "dev";
const root = path.resolve(import.meta.dirname, "..");
// The same .env files Next.js reads (.env, .env.local, .env.production …), loaded here too: the
// launcher decides between DATABASE_URL and the embedded database before Next.js starts.
nextEnv.loadEnvConfig(root, mode === "dev", { info: () => {}, error: console.error });
// Whatever read the environment before the .env files were loaded reads it again.
resetEnvironment();

function fail(message: string): never {
  process.stderr.write(`\nxclaw: ${message}\n\n`);
  process.exit(1);
}

/**
 * `npm start` used to generate a secret too: an install that relied on it keeps its sessions and
 * sealed secrets only with that same value, so a production start without one points at it.
 */
function earlierSecretHint(): string {
  try {
    const file = path.join(dataDirectory(), "auth-secret");
    if (mode !== "start" || environment().NEXTAUTH_SECRET || !existsSync(file)) return "";
    return `\nAn earlier start generated ${file}: set NEXTAUTH_SECRET to its contents to keep people signed in and stored secrets readable.`;
  } catch {
    return "";
  }
}

/** `npm run dev` only: NEXTAUTH_SECRET, else the one generated in the data directory on the first start. */
async function ensureAuthSecret(configured: string | undefined, directory: string): Promise<string> {
  if (configured) return configured;
  const file = path.join(directory, "auth-secret");
  const existing = await readFile(file, "utf8").catch(() => "");
  if (existing.trim()) return existing.trim();
  const secret = randomBytes(32).toString("base64url");
  await writeFile(file, secret + "\n", { mode: 0o600 });
  await chmod(file, 0o600);
  return secret;
}

/** Which model providers and models chats will use, in chain order, or plainly that there are none. */
function reportProviders(config: ReturnType<typeof getBehaviourConfig>): void {
  const status = providerStatus(config);
  const configured = status.filter((provider) => provider.configured);
  if (!configured.length) {
    process.stdout.write(`xclaw: no model provider is configured: chats cannot answer until OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY is set (README, "Model providers")\n`);
    return;
  }
  const chain = configured.map((provider) => {
    const extra = config.providers[provider.name].models.filter((model) => model !== provider.model);
    return `${provider.name} (${provider.model}${extra.length ? `; also offered: ${extra.join(", ")}` : ""})`;
  });
  const skipped = status.filter((provider) => !provider.configured).map((provider) => provider.name);
  process.stdout.write(`xclaw: model providers: ${chain.join(" → ")}${skipped.length ? ` (not configured: ${skipped.join(", ")})` : ""}\n`);
}

/** One start-up message on what the shell sandbox enforces here, and loudly what it cannot. */
function reportSandbox(config: ReturnType<typeof getBehaviourConfig>): void {
  const runtime = createSandboxRuntime(config);
  if (runtime.mode === "none") return void process.stdout.write(`xclaw: the shell is off: ${runtime.reason}\n`);
  if (!runtime.enforcement) return void process.stdout.write(`xclaw: shell sandbox: ${runtime.mode} (remote)\n`);
  const lines = [`xclaw: shell sandbox: bubblewrap`, ...runtime.enforcement.enforced.map((line) => `  enforced: ${line}`), ...runtime.enforcement.notEnforced.map((line) => `  NOT enforced: ${line}`)];
  process.stdout.write(lines.join("\n") + "\n");
}

/**
 * The Next.js server to run. A production build makes Next.js's standalone server
 * (.next/standalone/server.js, what the image runs too); it changes its working directory to its
 * own folder, so it is given absolute paths to everything it reads (xclaw.yaml, plugins/, skills/,
 * the data directory) and its address in PORT / HOSTNAME. Development, and a build made without the
 * standalone output, use the `next` command.
 */
function serverCommand(env: NodeJS.ProcessEnv, options: { port: number; data: string }): string[] {
  const variables = environment();
  const standalone = path.join(root, ".next", "standalone", "server.js");
  if (mode === "start" && existsSync(standalone)) {
    // `next build` alone leaves the pages' scripts and styles out of the standalone folder: every
    // page would load without them (forms post as plain HTML, nothing is interactive).
    if (!existsSync(path.join(root, ".next", "standalone", ".next", "static"))) {
      fail("the production build is incomplete: .next/standalone/.next/static is missing. Build with `npm run build` (it runs `next build` and copies the static files beside the server).");
    }
    env.PORT = String(options.port);
    env.HOSTNAME = variables.HOST ?? "0.0.0.0";
    env.XCLAW_DATA_DIR = options.data;
    env.XCLAW_CONFIG = configPath();
    env.XCLAW_BUNDLED_PLUGINS ??= path.join(root, "plugins");
    env.XCLAW_BUNDLED_SKILLS ??= path.join(root, "skills");
    // npm gives its scripts the package's version; the server started directly needs it passed on.
    env.XCLAW_VERSION ??= variables.XCLAW_VERSION ?? (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
    return [standalone];
  }
  const args = [path.join(root, "node_modules", "next", "dist", "bin", "next"), mode, "--port", String(options.port)];
  if (variables.HOST) args.push("--hostname", variables.HOST);
  return args;
}

async function main() {
  let config;
  let variables;
  try {
    // A production start refuses a missing, short or example auth secret (it would not generate one).
    variables = checkEnvironment({ production: mode === "start" });
    config = getBehaviourConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message + earlierSecretHint());
    throw error;
  }
  // First, before this process starts any other: on cgroup v2 a group must hold no processes to
  // give the sandbox per-command groups, so the launcher moves itself into a subgroup (only when
  // its group is delegated to it).
  const delegation = prepareCgroupDelegation();
  if (delegation) process.stdout.write(`xclaw: ${delegation}\n`);
  const port = appPort();
  const data = dataDirectory();
  await mkdir(data, { recursive: true });

  // The environment of the processes started from here: this one's, plus what the launcher decides.
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (!variables.LOG_LEVEL) env.LOG_LEVEL = config.logging.level;
  // Telemetry would try to reach the internet on every start; self-hosters opt in explicitly.
  if (!variables.NEXT_TELEMETRY_DISABLED) env.NEXT_TELEMETRY_DISABLED = "1";
  if (mode === "dev") env.NEXTAUTH_SECRET = await ensureAuthSecret(variables.NEXTAUTH_SECRET, data);
  if (!variables.NEXTAUTH_URL) env.NEXTAUTH_URL = `http://localhost:${port}`;

  let embedded: TEmbeddedDatabase | undefined;
  if (!variables.DATABASE_URL) {
    const started = performance.now();
    try {
      embedded = await startEmbeddedDatabase({ dataDirectory: path.join(data, "pglite"), port: variables.XCLAW_EMBEDDED_DB_PORT });
    } catch (error) {
      fail(`could not start the embedded database: ${(error as Error).message}`);
    }
    let result;
    try {
      result = await migrateDatabase(embedded.url, { directory: path.join(root, "prisma", "migrations") });
    } catch (error) {
      await embedded.stop();
      fail(error instanceof DatabaseAheadError ? error.message : `could not migrate the embedded database: ${(error as Error).message}`);
    }
    env.DATABASE_URL = embedded.url;
    env.XCLAW_EMBEDDED_DATABASE_URL = embedded.url;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const applied = result.applied.length ? `, applied ${result.applied.length} migration(s)` : "";
    process.stdout.write(`xclaw: embedded database (PGlite + pgvector) in ${embedded.dataDirectory} ready in ${seconds} s${applied}\n`);
  } else {
    // Pending migrations are applied at every start, under PostgreSQL's advisory lock (several
    // replicas starting together migrate once); a database migrated by a newer version refuses.
    try {
      const result = await migrateDatabase(variables.DATABASE_URL, { directory: path.join(root, "prisma", "migrations") });
      if (result.applied.length) process.stdout.write(`xclaw: applied ${result.applied.length} migration(s): ${result.applied.join(", ")}\n`);
    } catch (error) {
      if (error instanceof DatabaseAheadError) fail(error.message);
      fail(`cannot migrate DATABASE_URL: ${(error as Error).message}`);
    }
  }

  reportProviders(config);
  reportSandbox(config);

  if (mode === "start" && !existsSync(path.join(root, ".next", "BUILD_ID"))) {
    await embedded?.stop();
    fail("no production build found. Run `npm run build` first (or `npm run dev` for development).");
  }

  let browserWorker: TWorkerProcess | undefined;
  if (config.browser.worker === "embedded" && !variables.BROWSER_WORKER_URL) {
    const secret = variables.BROWSER_WORKER_SECRET || randomBytes(32).toString("base64url");
    const started = await spawnBrowserWorker({ root, env, secret, port: config.browser.port });
    if ("error" in started) {
      process.stdout.write(`xclaw: browser tools are off: ${started.error}\n`);
    } else {
      browserWorker = started;
      env.BROWSER_WORKER_URL = started.url;
      env.BROWSER_WORKER_SECRET = secret;
      process.stdout.write(`xclaw: browser worker ready on ${started.url}\n`);
    }
  }

  let pluginHost: THostProcess | undefined;
  if (config.plugins.host === "embedded" && !variables.PLUGIN_HOST_URL) {
    const secret = variables.PLUGIN_HOST_SECRET || randomBytes(32).toString("base64url");
    const started = await spawnPluginHost({ root, env, secret, port: config.plugins.port });
    if ("error" in started) {
      process.stdout.write(`xclaw: plugins are off: ${started.error}\n`);
    } else {
      pluginHost = started;
      env.PLUGIN_HOST_URL = started.url;
      env.PLUGIN_HOST_SECRET = secret;
      process.stdout.write(`xclaw: plugin host ready on ${started.url}\n`);
    }
  }

  const args = serverCommand(env, { port, data });
  // XCLAW_NEXT_NODE_ARGS: extra Node.js flags for the server process (profiling: --cpu-prof …).
  // In production the server drains on SIGTERM itself (lib/app/shutdown.ts) instead of Next.js
  // closing and exiting at once.
  if (mode === "start") env.NEXT_MANUAL_SIG_HANDLE = "1";
  const child = spawn(process.execPath, [...variables.XCLAW_NEXT_NODE_ARGS, ...args], { cwd: root, env, stdio: "inherit" });

  // A signal is passed on once (the server counts a repeat within two seconds as the same one),
  // the workers stop only after the server has finished its runs, and a server that does not
  // exit within the drain time plus a margin is killed.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    child.kill(signal);
    const margin = mode === "start" ? (config.shutdown.drainSeconds + 10) * 1000 : 15_000;
    setTimeout(() => child.kill("SIGKILL"), margin).unref();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  child.on("exit", async (code, signal) => {
    await Promise.all([browserWorker?.stop(), pluginHost?.stop()]);
    await embedded?.stop();
    process.exit(code ?? (signal ? 0 : 1));
  });
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));

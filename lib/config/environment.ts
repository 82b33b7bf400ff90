import path from "node:path";
import { z } from "zod";
import { ConfigError } from "./config-error";

/**
 * Every environment variable xclaw reads, declared once: its type, its default and what it is for.
 * Nothing else in lib/, app/, components/, workers/, inngest/, proxy.ts, instrumentation.ts or
 * next.config.ts reads `process.env` (eslint.config.mjs enforces it; instrumentation.ts keeps its
 * build-time NEXT_RUNTIME test); the rest of the code asks `environment()` or one of the accessors
 * below. scripts/ read it through here too, and write the environment of the processes they start.
 *
 * The environment is parsed once per process, on first use; a wrong value is a ConfigError that
 * names each variable and what is wrong with it (never its value, which may be a secret). The
 * launcher, the workers and instrumentation.ts check it at start, so a bad value stops the start
 * instead of a request. Tests that change process.env call resetEnvironment() afterwards.
 *
 * An empty value means "not set" (`FOO=` in .env), except where a description says otherwise.
 * `.env.example` documents exactly these variables (tests/unit/environment.test.ts checks it).
 * Variables a plugin or skill manifest names are not known in advance: manifestVariable() reads
 * them. The test harness's own plumbing between its processes (XCLAW_TEST_DATABASE, E2E_*, …)
 * is not part of the app's environment and is read by tests/ alone.
 */

/**
 * - setting: set by whoever runs xclaw (.env, the service manager).
 * - system: set by the operating system, npm, Next.js or the launcher; read, not meant to be set by hand.
 * - test: used by the test suites and tools only.
 */
export type TVariableKind = "setting" | "system" | "test";
export type TVariableDocumentation = { description: string; kind: TVariableKind };

const documentation = z.registry<TVariableDocumentation>();

function variable<T extends z.ZodType>(description: string, schema: T, kind: TVariableKind = "setting"): T {
  documentation.add(schema, { description, kind });
  return schema;
}

const unsetWhenEmpty = (value: unknown) => (value === "" ? undefined : value);

/** Optional; an empty value is the same as none. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(unsetWhenEmpty, schema.optional());
}

/** `fallback` when unset or empty. */
function withDefault<T extends z.ZodType>(schema: T, fallback: z.util.NoUndefined<z.output<T>>) {
  return z.preprocess(unsetWhenEmpty, schema.default(fallback));
}

const text = () => z.string();

function integer(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((value) => value >= min && value <= max, message);
}

const port = (min: 0 | 1) => integer(min, 65_535);

/** An http(s) address; a typo such as a missing scheme is refused at start instead of failing at the first request. */
const httpUrl = () =>
  z.string().refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "must be an http:// or https:// URL");

/** Separated values, blanks dropped. */
const list = (separator: RegExp | string) =>
  z.string().transform((value) =>
    value
      .split(separator)
      .map((item) => item.trim())
      .filter(Boolean),
  );

const folderList = () => z.string().transform((value) => value.split(path.delimiter).filter(Boolean).map((folder) => path.resolve(folder)));

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
// The names providers.chain accepts in behaviour.ts (which imports this file, so cannot be imported here).
const PROVIDER_NAMES = ["openai", "anthropic"] as const;

export const ZEnvironment = z.object({
  // --- Database
  DATABASE_URL: variable("PostgreSQL 15+ with pgvector; unset: the embedded database (PGlite) that `npm run dev` / `npm start` start", optional(text())),
  DATABASE_POOL_MAX: variable("connections per app process for PostgreSQL (default: database.poolMax in xclaw.yaml)", optional(integer(1, 10_000))),
  XCLAW_EMBEDDED_DB_PORT: variable("fixed loopback port for the embedded database (default 0: a free port chosen at start)", withDefault(port(0), 0)),
  XCLAW_EMBEDDED_DATABASE_URL: variable("set by the launcher to the URL of the embedded database it started", optional(text()), "system"),

  // --- App
  PORT: variable("port the web app listens on", withDefault(port(1), 3000)),
  HOST: variable("interface the web app binds (default: all)", optional(text())),
  XCLAW_DEV_ORIGINS: variable("`npm run dev` only: more host names the dev server answers as its own (comma-separated)", withDefault(list(","), [])),
  XCLAW_DATA_DIR: variable(
    "where xclaw keeps its files: embedded database, generated auth secret, workspaces (default ./.data)",
    withDefault(text(), ".data").transform((folder) => path.resolve(folder)),
  ),
  XCLAW_CONFIG: variable("path of the behaviour settings file (default ./xclaw.yaml; when set, the file must exist)", optional(text())),
  XCLAW_NEXT_NODE_ARGS: variable("extra Node.js flags for the Next.js server process the launcher starts (profiling: --cpu-prof …)", withDefault(list(/\s+/), [])),
  XCLAW_VERSION: variable("version /api/health reports (default: the package version npm gives)", optional(text())),
  NEXT_TELEMETRY_DISABLED: variable("Next.js telemetry; the launcher sets 1 (off) unless it is set", optional(text())),

  // --- Auth
  NEXTAUTH_SECRET: variable("encrypts session cookies and seals stored secrets; a production start needs 32 bytes or more", optional(text())),
  NEXTAUTH_SECRET_PREVIOUS: variable("the previous NEXTAUTH_SECRET while it is rotated (npm run xclaw -- rotate-secret): still accepted to read; remove it afterwards", optional(text())),
  NEXTAUTH_URL: variable("public URL of the app (scheme + host + port); https marks cookies Secure", optional(httpUrl())),
  XCLAW_TRUSTED_PROXIES: variable("number of reverse proxies in front of the app that append to X-Forwarded-For", withDefault(integer(0, 99), 0)),

  // --- Model providers
  OPENAI_API_KEY: variable("OpenAI (or compatible server) API key", optional(text())),
  OPENAI_BASE_URL: variable("OpenAI-compatible endpoint (Ollama, vLLM, …)", optional(httpUrl())),
  OPENAI_MODEL: variable("overrides providers.openai.model", optional(text())),
  ANTHROPIC_API_KEY: variable("Anthropic API key", optional(text())),
  ANTHROPIC_BASE_URL: variable("Anthropic endpoint, only for a proxy or gateway", optional(httpUrl())),
  ANTHROPIC_MODEL: variable("overrides providers.anthropic.model", optional(text())),
  XCLAW_PROVIDERS: variable(
    "provider order, overriding providers.chain in xclaw.yaml (comma-separated: openai, anthropic)",
    optional(
      list(",")
        .transform((names) => names.map((name) => name.toLowerCase()))
        .pipe(z.array(z.enum(PROVIDER_NAMES, { error: `must name providers from: ${PROVIDER_NAMES.join(", ")}` }))),
    ),
  ),

  // --- Embeddings
  EMBEDDINGS_BASE_URL: variable("OpenAI-compatible /embeddings endpoint (unset: the OpenAI settings)", optional(httpUrl())),
  EMBEDDINGS_API_KEY: variable("key for EMBEDDINGS_BASE_URL", optional(text())),
  EMBEDDINGS_MODEL: variable("overrides embeddings.model", optional(text())),

  // --- Sandboxes
  XCLAW_SANDBOX_CGROUP: variable("a cgroup v2 group the app may manage for per-command limits", optional(text())),
  E2B_API_KEY: variable("E2B-compatible sandbox service key (sandbox.mode: e2b)", optional(text())),
  E2B_DOMAIN: variable("E2B-compatible (CubeSandbox) domain", optional(text())),
  E2B_API_URL: variable("E2B API address when it is not api.<E2B_DOMAIN>", optional(httpUrl())),

  // --- Browser worker
  BROWSER_WORKER_URL: variable("a browser worker you run yourself (unset: the launcher starts one)", optional(httpUrl())),
  BROWSER_WORKER_SECRET: variable("shared secret between the app and the browser worker", optional(text())),
  BROWSER_WORKER_PORT: variable("the worker process's port (default browser.port; 0: any free one)", optional(port(0))),
  BROWSER_WORKER_HOST: variable("the worker process's interface", withDefault(text(), "127.0.0.1")),
  CHROMIUM_PATH: variable("Chromium for the worker and the e2e tests (default /usr/bin/chromium, then Playwright's)", optional(text())),

  // --- Background jobs on Inngest (read by the Inngest SDK itself)
  INNGEST_EVENT_KEY: variable("Inngest event key", optional(text())),
  INNGEST_SIGNING_KEY: variable("Inngest signing key", optional(text())),
  INNGEST_SIGNING_KEY_FALLBACK: variable("the previous Inngest signing key while it is rotated", optional(text())),
  INNGEST_BASE_URL: variable("a self-hosted Inngest server", optional(httpUrl())),
  INNGEST_DEV: variable("development against the Inngest dev server (1, or its URL); never in production", optional(text())),

  // --- Plugins and skills
  PLUGIN_HOST_URL: variable("a plugin host you run yourself (unset: the launcher starts one)", optional(httpUrl())),
  PLUGIN_HOST_SECRET: variable("shared secret between the app and the plugin host", optional(text())),
  PLUGIN_HOST_PORT: variable("the plugin host process's port (default plugins.port)", optional(port(0))),
  PLUGIN_HOST_HOST: variable("the plugin host process's interface (0.0.0.0 only in a container of its own)", withDefault(text(), "127.0.0.1")),
  XCLAW_BUNDLED_PLUGINS: variable("folders of bundled plugins, ':'-separated (unset: plugins/; empty: none)", folderList().optional()),
  XCLAW_BUNDLED_SKILLS: variable("folders of bundled skills, ':'-separated (unset: skills/; empty: none)", folderList().optional()),

  // --- Logs
  LOG_LEVEL: variable(
    "debug | info | warn | error (overrides logging.level in xclaw.yaml)",
    optional(
      text()
        .transform((level) => level.toLowerCase())
        .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })),
    ),
  ),

  // --- Metrics and traces
  METRICS_TOKEN: variable(
    "bearer token a Prometheus scraper sends to GET /api/metrics (unset: administrators only); 16 characters or more",
    optional(text().min(16, "must be 16 characters or more")),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: variable("OpenTelemetry collector (OTLP over HTTP, e.g. http://collector:4318): traces of runs, model and tool calls, jobs (unset: no traces)", optional(httpUrl())),
  OTEL_SERVICE_NAME: variable("service.name of the exported traces", withDefault(text(), "xclaw")),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: variable(
    "true: spans carry message content (model text, tool arguments and results); off by default",
    withDefault(z.enum(["true", "false"], { error: "must be true or false" }).transform((flag) => flag === "true"), false),
  ),

  // --- Set by the system, npm, Next.js or the launcher
  NODE_ENV: variable("development | production, set by next dev / next start", optional(text()), "system"),
  NEXT_MANUAL_SIG_HANDLE: variable("set by the launcher for production servers: Next.js leaves SIGTERM to xclaw's drain (lib/app/shutdown.ts)", optional(text()), "system"),
  PATH: variable("where skills' required programs are looked for; handed to plugin processes", optional(text()), "system"),
  LANG: variable("handed to plugin processes", optional(text()), "system"),
  TZ: variable("handed to plugin processes", optional(text()), "system"),
  npm_package_version: variable("set by npm: the version in package.json", optional(text()), "system"),

  // --- Tests only
  XCLAW_LOG_SILENT: variable("1: no log lines (the test suites and benchmarks)", withDefault(z.enum(["0", "1"], { error: "must be 1 or 0" }).transform((flag) => flag === "1"), false), "test"),
  TEST_DATABASE_URL: variable("a PostgreSQL superuser URL: integration and e2e tests run against it too", optional(text()), "test"),
  SHADOW_DATABASE_URL: variable("scratch database for `npm run db:drift`", optional(text()), "test"),
});

export type TEnvironment = z.output<typeof ZEnvironment>;

/** Each variable of the schema with its description and kind, in declaration order (for the .env.example check). */
export function documentedVariables(): { name: string; description: string; kind: TVariableKind }[] {
  return Object.entries(ZEnvironment.shape).map(([name, schema]) => ({ name, ...documentation.get(schema)! }));
}

function describeIssues(error: z.ZodError): string {
  // The variable's name alone: a list's item index would say less than the message.
  const lines = new Set(error.issues.map((issue) => `  - ${String(issue.path[0] ?? "(environment)")}: ${issue.message}`));
  return `the environment is not valid:\n${[...lines].join("\n")}`;
}

/** Parses an environment (process.env, or one a test builds); throws a ConfigError naming each wrong variable. */
export function parseEnvironment(source: Record<string, string | undefined>): TEnvironment {
  const result = ZEnvironment.safeParse(source);
  if (!result.success) throw new ConfigError(describeIssues(result.error));
  return result.data;
}

let parsed: TEnvironment | undefined;

/** The process's environment, parsed on first use. */
export function environment(): TEnvironment {
  // eslint-disable-next-line no-restricted-properties -- the one place that reads it
  parsed ??= parseEnvironment(process.env);
  return parsed;
}

/** Forgets the parsed environment: for tests, and a launcher that has just loaded .env files. */
export function resetEnvironment(): void {
  parsed = undefined;
}

/**
 * A variable a plugin manifest (permissions.secrets) or a skill (requires.env) names: not known in
 * advance, so read as it is now, unvalidated. Empty counts as unset.
 */
export function manifestVariable(name: string): string | undefined {
  // eslint-disable-next-line no-restricted-properties -- the one place that reads it
  return process.env[name] || undefined;
}

/**
 * The NEXTAUTH_SECRET value .env.example shows. Anyone can read it, so it is refused everywhere;
 * tests/unit/environment.test.ts checks that .env.example shows exactly this.
 */
export const EXAMPLE_AUTH_SECRET = "example-only-replace-with-the-output-of-openssl-rand-base64-32";
export const MINIMUM_AUTH_SECRET_BYTES = 32;

/** Why this auth secret must not be used, or undefined. Production needs one of 32 bytes or more. */
export function authSecretProblem(secret: string | undefined, options: { production: boolean }): string | undefined {
  const generate = "generate one with `openssl rand -base64 32` and set it in .env or the service's environment";
  if (secret === EXAMPLE_AUTH_SECRET) return `NEXTAUTH_SECRET is the example value from .env.example, which anyone can read: ${generate}.`;
  if (!options.production) return undefined;
  if (!secret) return `NEXTAUTH_SECRET is not set: a production start needs a secret of at least ${MINIMUM_AUTH_SECRET_BYTES} bytes; ${generate} (\`npm run dev\` makes one for development).`;
  const bytes = Buffer.byteLength(secret, "utf8");
  if (bytes < MINIMUM_AUTH_SECRET_BYTES) return `NEXTAUTH_SECRET is too short (${bytes} bytes): a production start needs at least ${MINIMUM_AUTH_SECRET_BYTES}; ${generate}.`;
  return undefined;
}

export function isProduction(): boolean {
  return environment().NODE_ENV === "production";
}

/**
 * The start-up check: the whole environment, and the auth secret as this kind of start needs it
 * (production: the Next.js server under NODE_ENV=production, and `npm start`). Throws a ConfigError.
 */
export function checkEnvironment(options: { production?: boolean } = {}): TEnvironment {
  const checked = environment();
  const problem = authSecretProblem(checked.NEXTAUTH_SECRET, { production: options.production ?? checked.NODE_ENV === "production" });
  if (problem) throw new ConfigError(problem);
  return checked;
}

/**
 * For a server process as it starts (instrumentation.ts): checkEnvironment(), or its message alone
 * on stderr and exit 1, before the process serves anything.
 */
export function checkEnvironmentOrExit(): void {
  try {
    checkEnvironment();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`\nxclaw: ${error.message}\n\n`);
    process.exit(1);
  }
}

/** Where xclaw keeps its files (embedded database, generated secret, workspaces). */
export function dataDirectory(): string {
  return environment().XCLAW_DATA_DIR;
}

export function appPort(): number {
  return environment().PORT;
}

/**
 * The secrets stored values and session cookies may have been sealed with: the current one first,
 * then, during a rotation, the previous one (docs/operations.md, "Rotating NEXTAUTH_SECRET").
 */
export function authSecrets(): string[] {
  const previous = environment().NEXTAUTH_SECRET_PREVIOUS;
  return previous && previous !== authSecret() ? [authSecret(), previous] : [authSecret()];
}

export function authSecret(): string {
  const secret = environment().NEXTAUTH_SECRET;
  if (!secret) {
    throw new Error("NEXTAUTH_SECRET is not set. `npm run dev` creates one in the data directory; set it yourself for `npm start` or when you run Next.js directly.");
  }
  return secret;
}

/** The public origin of the app, used for redirects and the same-origin check. */
export function publicOrigin(): string | undefined {
  const url = environment().NEXTAUTH_URL;
  return url ? new URL(url).origin : undefined;
}

export function appVersion(): string {
  const { XCLAW_VERSION, npm_package_version } = environment();
  return XCLAW_VERSION || npm_package_version || "0.1.0";
}

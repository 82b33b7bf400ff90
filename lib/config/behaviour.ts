import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ZChannelsConfig } from "./channels-config";
import { ZChronosConfig } from "./chronos-config";
import { ZContextConfig } from "./context-config";
import { ZEmbeddingsConfig, ZKnowledgeConfig, ZMemoryConfig } from "./memory-config";
import { ConfigError } from "./config-error";
import { environment } from "./environment";

/**
 * Behaviour settings from the committed `xclaw.yaml` (secrets live in the environment instead).
 * Every section has defaults, so a missing file or a missing key means "the documented default";
 * an unknown key or a wrong type is a start-up error that names the key, because a typo that is
 * silently ignored is worse than a refusal to start.
 */
const ZRateLimitRule = z.strictObject({
  maxFailures: z.int().min(1).max(10_000),
  windowSeconds: z.int().min(1).max(86_400),
});

/** Like ZRateLimitRule, for limits that count every attempt, not only failed ones. */
const ZAttemptLimitRule = z.strictObject({
  maxAttempts: z.int().min(1).max(10_000),
  windowSeconds: z.int().min(1).max(86_400),
});

const ZProviderSettings = z.strictObject({
  /** Default model; OPENAI_MODEL / ANTHROPIC_MODEL override it. */
  model: z.string().min(1),
  /** More models of this provider that people may pick per chat (the model picker); the default is always offered. */
  models: z.array(z.string().min(1).max(200)).max(50).default([]),
  /** "text" describes tools in the prompt for models without native tool calling. */
  toolCalling: z.enum(["native", "text"]).default("native"),
  contextWindowTokens: z.int().min(1_000).max(10_000_000),
  maxOutputTokens: z.int().min(16).max(200_000).default(4_096),
});

const ZApprovalDecision = z.enum(["allow", "ask", "deny"]);

const DEFAULT_WRITE_EXTENSIONS = [".md", ".txt", ".json", ".yaml", ".yml", ".csv", ".tsv", ".html", ".css", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".py", ".xml", ".sql", ".toml", ".ini"];
const DEFAULT_READ_EXTENSIONS = [...DEFAULT_WRITE_EXTENSIONS, ".log", ".sh", ".go", ".rs", ".java", ".c", ".h", ".cpp", ".rb", ".php"];

export const ZBehaviourConfig = z.strictObject({
  auth: z
    .strictObject({
      /** Whether people may sign up on their own on a new install; admins change it at run time. */
      registration: z.enum(["open", "closed"]).default("open"),
      sessionMaxAgeDays: z.int().min(1).max(365).default(30),
      passwordMinLength: z.int().min(8).max(128).default(8),
      signInRateLimit: z
        .strictObject({
          perEmail: ZRateLimitRule.default({ maxFailures: 5, windowSeconds: 900 }),
          perIp: ZRateLimitRule.default({ maxFailures: 50, windowSeconds: 900 }),
        })
        .default({ perEmail: { maxFailures: 5, windowSeconds: 900 }, perIp: { maxFailures: 50, windowSeconds: 900 } }),
      /** Wrong current passwords on POST /api/me/password, per account. */
      passwordChangeRateLimit: ZRateLimitRule.default({ maxFailures: 5, windowSeconds: 900 }),
      /** Account creations tried per client IP (successful or not); each one costs a password hash. */
      registrationRateLimit: z
        .strictObject({ perIp: ZAttemptLimitRule.default({ maxAttempts: 30, windowSeconds: 3_600 }) })
        .default({ perIp: { maxAttempts: 30, windowSeconds: 3_600 } }),
      /** How long an invitation link (an admin added the account) stays usable. */
      inviteDays: z.int().min(1).max(90).default(7),
      /** How long a password reset link made by an admin stays usable. */
      passwordResetHours: z.int().min(1).max(720).default(24),
    })
    .prefault({}),
  http: z
    .strictObject({
      /**
       * Largest JSON (or sign-in form) body accepted; larger ones get 413 without being read.
       * Chat messages, titles and settings are far smaller; the cap keeps one request from
       * making the server buffer and parse megabytes.
       */
      maxJsonBytes: z.int().min(1_024).max(64 * 1024 * 1024).default(1024 * 1024),
    })
    .prefault({}),
  agent: z
    .strictObject({
      /** Model calls per run before the loop stops with a message instead of going on forever. */
      maxIterations: z.int().min(1).max(100).default(12),
      /** Appended to the built-in system prompt (who the assistant is, house rules). */
      instructions: z.string().max(20_000).default(""),
      /** Tool calls in one model turn that may run at once when all are read-only. */
      maxParallelTools: z.int().min(1).max(32).default(4),
    })
    .prefault({}),
  // What the model sees of a long conversation: offloaded and masked tool results (lib/context).
  context: ZContextConfig,
  database: z
    .strictObject({
      /**
       * Connections per app process (DATABASE_POOL_MAX overrides it). The embedded database always
       * uses one: PGlite has a single session.
       */
      poolMax: z.int().min(1).max(1_000).default(20),
      /**
       * How long a query may wait for a free connection before it fails. Runs never hold a
       * connection while they wait for the model or a tool, so waiting beats failing.
       */
      connectionWaitSeconds: z.number().min(1).max(600).default(60),
    })
    .prefault({}),
  runs: z
    .strictObject({
      /**
       * How runs are followed and stopped across app processes. memory: one process (the embedded
       * database allows no other); postgres: LISTEN/NOTIFY on the database; auto: postgres when
       * DATABASE_URL is a PostgreSQL server, memory with the embedded database.
       */
      events: z.enum(["auto", "memory", "postgres"]).default("auto"),
      /** A running session whose owner has not renewed its lease for this long was interrupted. */
      leaseSeconds: z.number().min(1).max(600).default(15),
      /** How often the owner renews the lease (and reads a Stop from another process). */
      heartbeatSeconds: z.number().min(0.1).max(120).default(5),
      /** Runs one app process executes at once; beyond it new runs are refused with 503 and Retry-After. */
      maxConcurrent: z.int().min(1).max(100_000).default(1_000),
      /** Runs one user has going at once (all processes); beyond it new runs are refused with 429 and Retry-After. */
      maxConcurrentPerUser: z.int().min(1).max(10_000).default(10),
    })
    .prefault({})
    .refine((runs) => runs.heartbeatSeconds * 2 <= runs.leaseSeconds, { message: "runs.heartbeatSeconds must be at most half of runs.leaseSeconds" }),
  shutdown: z
    .strictObject({
      /**
       * After SIGTERM: how long runs in progress (and job handlers) get to finish before they are
       * handed over to another process; the process exits within this plus a few seconds.
       */
      drainSeconds: z.number().min(0).max(3_600).default(25),
    })
    .prefault({}),
  providers: z
    .strictObject({
      /** Order in which providers are tried; XCLAW_PROVIDERS (comma-separated) overrides it. */
      chain: z.array(z.enum(["openai", "anthropic"])).min(1).default(["openai", "anthropic"]),
      retries: z.int().min(0).max(10).default(2),
      retryBaseDelayMs: z.int().min(0).max(60_000).default(500),
      retryMaxDelayMs: z.int().min(0).max(300_000).default(20_000),
      /** An attempt fails when the provider sends nothing for this long. */
      attemptTimeoutSeconds: z.number().min(1).max(3_600).default(60),
      openai: ZProviderSettings.prefault({ model: "gpt-4o-mini", contextWindowTokens: 128_000 }),
      anthropic: ZProviderSettings.prefault({ model: "claude-sonnet-5", contextWindowTokens: 200_000 }),
    })
    .prefault({}),
  workspace: z
    .strictObject({
      /** Extensions (lower case, with the dot; "" = no extension) the file tools may read. */
      readExtensions: z.array(z.string()).default(DEFAULT_READ_EXTENSIONS),
      /** Extensions the file tools may write; scripts such as .sh are left out on purpose. */
      writeExtensions: z.array(z.string()).default(DEFAULT_WRITE_EXTENSIONS),
      maxReadBytes: z.int().min(1_024).max(100 * 1024 * 1024).default(1024 * 1024),
      maxWriteBytes: z.int().min(1_024).max(100 * 1024 * 1024).default(1024 * 1024),
      /** Disk space per user workspace (MiB); commands and file tools cannot grow a workspace past it. */
      quotaMiB: z.int().min(1).max(1_048_576).default(1_024),
    })
    .prefault({}),
  tools: z
    .strictObject({
      /** delete_file is off unless enabled here. */
      deleteFile: z.boolean().default(false),
    })
    .prefault({}),
  sandbox: z
    .strictObject({
      /** auto = bubblewrap where `bwrap` is installed, otherwise none (no shell tool). */
      mode: z.enum(["auto", "bubblewrap", "e2b", "none"]).default("auto"),
      timeoutSeconds: z.int().min(1).max(3_600).default(30),
      maxOutputBytes: z.int().min(1_024).max(10 * 1024 * 1024).default(64 * 1024),
      /** Memory for a whole command (all its processes and its /tmp) when cgroups are available. */
      memoryMegabytes: z.int().min(64).max(65_536).default(1_024),
      cpuSeconds: z.int().min(1).max(3_600).default(60),
      /** Processes (threads count too) one command may have at once. */
      maxProcesses: z.int().min(8).max(32_768).default(256),
      /** Size of the command's private /tmp, which lives in memory. */
      tmpMegabytes: z.int().min(1).max(65_536).default(256),
      /** When the app runs as root, commands run as this user and group instead (65534 = nobody). */
      runAsUid: z.int().min(1).max(4_294_967_294).default(65_534),
      runAsGid: z.int().min(1).max(4_294_967_294).default(65_534),
      e2b: z
        .strictObject({
          template: z.string().default("base"),
          /** A session's remote sandbox is killed after this long without use. */
          idleMinutes: z.int().min(1).max(1_440).default(10),
        })
        .prefault({}),
    })
    .prefault({}),
  approvals: z
    .strictObject({
      /** What happens to a tool call of each risk level: allow, ask the session owner, or deny. */
      read: ZApprovalDecision.default("allow"),
      write: ZApprovalDecision.default("ask"),
      execute: ZApprovalDecision.default("ask"),
      external: ZApprovalDecision.default("ask"),
      /** Per-tool overrides by tool name, e.g. { delete_file: deny }. */
      tools: z.record(z.string(), ZApprovalDecision).default({}),
      /** A pending approval older than this counts as denied. */
      expireMinutes: z.int().min(1).max(10_080).default(60),
    })
    .prefault({}),
  browser: z
    .strictObject({
      /**
       * embedded: `npm run dev` / `npm start` run the browser worker beside the app (needs Chromium);
       * off: no browser tools. With BROWSER_WORKER_URL set, that worker is used and none is started.
       */
      worker: z.enum(["embedded", "off"]).default("embedded"),
      /** Loopback port of the embedded worker; 0 picks a free one at start. */
      port: z.int().min(0).max(65_535).default(0),
      /** A session's browser context (pages, cookies) is closed after this long without use. */
      idleMinutes: z.number().min(1).max(1_440).default(15),
      /** Open contexts per worker; beyond it the least recently used one is closed. */
      maxContexts: z.int().min(1).max(1_000).default(20),
      navigationTimeoutSeconds: z.number().min(1).max(300).default(20),
      /** After a page has loaded, how long to wait at most for its network to go quiet. */
      networkIdleSeconds: z.number().min(0).max(60).default(5),
      /** Characters per browser_content part; the model reads on with an offset. */
      contentPageCharacters: z.int().min(1_000).max(200_000).default(8_000),
      /**
       * Hosts on private, loopback or link-local addresses the browser may open anyway: `host`,
       * `host:port`, `[::1]:port` or an address range such as `10.1.0.0/16`.
       */
      allowedPrivateHosts: z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:.]+\/\d{1,3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+|[A-Za-z0-9.-]+(:\d{1,5})?)$/, "must be host, host:port, [v6]:port or an address range")).default([]),
      /**
       * Where the browser may send data (DESIGN.md decision 8). ask: only to the sites the session's
       * owner allowed; opening, typing, clicking or submitting anywhere else goes through the
       * approval policy first. allow: anywhere (the behaviour before this rule; trusted intranets).
       */
      egress: z.enum(["ask", "allow"], { error: 'must be "ask" or "allow"' }).default("ask"),
    })
    .prefault({}),
  jobs: z
    .strictObject({
      /**
       * local: the embedded runner in every app process (job runs are rows in this database);
       * inngest: events go to Inngest (INNGEST_EVENT_KEY / INNGEST_SIGNING_KEY or INNGEST_DEV=1),
       * which calls back on /api/inngest.
       */
      runner: z.enum(["local", "inngest"]).default("local"),
      /** jobs.prune deletes finished runs (and their steps) older than this. */
      keepDays: z.int().min(1).max(3_650).default(14),
      /** Runs one app process executes at the same time (embedded runner). */
      concurrency: z.int().min(1).max(1_000).default(10),
      /** A run whose worker stops renewing its lease for this long is taken over by another. */
      leaseSeconds: z.int().min(2).max(3_600).default(30),
      /** How often an idle runner looks for due work that no wake-up announced. */
      pollIntervalMs: z.int().min(50).max(60_000).default(1_000),
      /** The largest JSON a step may return; bigger results fail the run with a clear reason. */
      maxStepOutputBytes: z.int().min(1_024).max(4 * 1024 * 1024).default(512 * 1024),
      /** First retry delay; each further retry doubles it (with jitter), up to ten minutes. */
      retryBaseDelayMs: z.int().min(0).max(600_000).default(1_000),
    })
    .prefault({}),
  plugins: z
    .strictObject({
      /**
       * embedded: `npm run dev` / `npm start` run the plugin host beside the app (each enabled plugin
       * in its own process); off: no plugins. With PLUGIN_HOST_URL set, that host is used.
       */
      host: z.enum(["embedded", "off"]).default("embedded"),
      /** Loopback port of the embedded host; 0 picks a free one at start. */
      port: z.int().min(0).max(65_535).default(0),
      /** A plugin tool call with no answer after this long counts as a hang: the plugin is restarted. */
      callTimeoutSeconds: z.int().min(1).max(600).default(60),
      /** Crashes (or hangs) within ten minutes after which a plugin is marked failed instead of restarted. */
      maxCrashes: z.int().min(1).max(100).default(3),
      /**
       * Private, loopback or link-local hosts plugins may reach anyway (only those a plugin also
       * declares): `host`, `host:port`, `[::1]:port` or a range such as `10.1.0.0/16`.
       */
      allowedPrivateHosts: z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:.]+\/\d{1,3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+|[A-Za-z0-9.-]+(:\d{1,5})?)$/, "must be host, host:port, [v6]:port or an address range")).default([]),
    })
    .prefault({}),
  skills: z
    .strictObject({
      /**
       * catalog: the names and descriptions of the skills someone may use go into the system prompt
       * and the model loads a skill's instructions with skill_load; keywords: also the seeds' rule
       * (a skill whose description shares at least `keywordThreshold` words with the message is
       * loaded for that message).
       */
      selection: z.enum(["catalog", "keywords"]).default("catalog"),
      /** At most this many skills are listed in the system prompt. */
      catalogLimit: z.int().min(0).max(200).default(32),
      keywordThreshold: z.int().min(1).max(10).default(2),
      /** Personal (markdown) skills per person. */
      maxPersonalSkills: z.int().min(0).max(1_000).default(50),
    })
    .prefault({}),
  agents: z
    .strictObject({
      /**
       * Levels of workers under a chat: 1 = workers cannot delegate; 2 = a worker whose profile may
       * delegate can start workers of its own. The run core nests at most two levels.
       */
      maxDepth: z.int().min(1).max(2).default(2),
      /** Workers of one debate or delegation running at once (the rest wait in the job queue). */
      maxParallelWorkers: z.int().min(1).max(20).default(3),
      /** Workers one run may start in all (delegate, debate participants and pipeline steps count). */
      maxDelegationsPerRun: z.int().min(1).max(200).default(10),
      /** The same task to the same agent may fail this often in one chat; then it is refused. */
      maxAttemptsPerTask: z.int().min(1).max(20).default(3),
      /** A worker's time limit and model calls when its profile sets none. */
      workerTimeoutSeconds: z.int().min(1).max(3_600).default(60),
      workerMaxIterations: z.int().min(1).max(100).default(10),
      /** The most a profile or a delegate call's timeout_s may ask for. */
      maxWorkerTimeoutSeconds: z.int().min(1).max(86_400).default(900),
      /** Pipeline: a step's output longer than this reaches the next step as an artifact pointer. */
      inlineOutputCharacters: z.int().min(200).max(200_000).default(4_000),
    })
    .prefault({}),
  embeddings: ZEmbeddingsConfig,
  memory: ZMemoryConfig,
  knowledge: ZKnowledgeConfig,
  chat: z
    .strictObject({
      /** Files people attach to a message (stored in their workspace under uploads/). */
      attachments: z
        .strictObject({
          /** Largest file accepted, in bytes. */
          maxFileBytes: z.int().min(1_024).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
          /** Files per message. */
          maxFiles: z.int().min(1).max(20).default(5),
          /** Images are also sent to the model as image parts, each up to this size. */
          maxImageBytes: z.int().min(1_024).max(20 * 1024 * 1024).default(5 * 1024 * 1024),
        })
        .prefault({}),
      /** After the first reply, the model names the chat in a few words (unless the owner renamed it). */
      summarizeTitles: z.boolean().default(true),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(["debug", "info", "warn", "error"]).default("info"),
    })
    .prefault({}),
  chronos: ZChronosConfig,
  // QQ and Feishu bots: lib/channels.
  channels: ZChannelsConfig,
});

export type TBehaviourConfig = z.infer<typeof ZBehaviourConfig>;

export { ConfigError };

function describeIssues(error: z.ZodError, source: string): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    return `  - ${where}: ${issue.message}`;
  });
  return `${source} is not valid:\n${lines.join("\n")}`;
}

export function parseBehaviourConfig(text: string, source = "xclaw.yaml"): TBehaviourConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`${source} is not valid YAML: ${(error as Error).message}`);
  }
  const result = ZBehaviourConfig.safeParse(raw);
  if (!result.success) throw new ConfigError(describeIssues(result.error, source));
  return result.data;
}

export function configPath(): string {
  return path.resolve(environment().XCLAW_CONFIG ?? path.join(process.cwd(), "xclaw.yaml"));
}

let cached: TBehaviourConfig | undefined;

/** Reads and validates xclaw.yaml once per process. */
export function getBehaviourConfig(): TBehaviourConfig {
  if (cached) return cached;
  const file = configPath();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || environment().XCLAW_CONFIG) {
      throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  cached = parseBehaviourConfig(text, path.basename(file));
  return cached;
}

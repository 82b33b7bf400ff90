import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

/**
 * lib/ as features and what each may use (ARCHITECTURE.md, "Where behaviour lives"). Every folder
 * may use the foundation; the others name the folders they build on, and may use whatever those
 * may use. The list must stay a DAG (checked below, so a mutual pair cannot be declared), and
 * ESLint refuses any import outside a folder's allowance: nothing reaches up or sideways.
 * lib/app, the composition root, may use everything; nothing in lib/ may use it.
 */
const FOUNDATION = {
  "errors.ts": [],
  "process-singleton.ts": [],
  text: [],
  wire: [],
  config: ["errors.ts", "process-singleton.ts"],
  observability: ["config"],
  net: ["errors.ts", "config", "observability"],
  db: ["errors.ts", "config", "observability"],
  http: ["errors.ts", "config", "observability"],
};
const FEATURES = {
  // Engines and stores with no product knowledge.
  settings: [],
  jobs: [],
  providers: [],
  sandbox: [],
  bundles: [],
  // Tools and what builds on them.
  tools: ["providers", "sandbox"],
  browser: ["tools"],
  skills: ["bundles", "tools"],
  plugins: ["skills"],
  memory: ["jobs", "tools"],
  approvals: ["tools"],
  // Accounts and notifications.
  auth: ["jobs"],
  users: ["auth", "settings"],
  notifications: ["auth", "jobs"],
  // The agent loop, the tool-provider interface, sessions and the run core every trigger uses.
  capabilities: ["tools"],
  agent: ["tools"],
  sessions: ["capabilities"],
  // What the model sees of a long conversation: offload, masking and the recall tools.
  context: ["sessions", "agent"],
  runs: ["agent", "sessions", "approvals", "skills", "jobs"],
  // Features that start runs.
  channels: ["runs", "auth"],
  agents: ["runs"],
  chronos: ["runs", "notifications", "auth"],
  // Serving agents to other programs: the OpenAI-compatible API (/v1) and the MCP server.
  "openai-api": ["runs", "auth", "agents"],
  "mcp-server": ["openai-api", "memory"],
  // Metrics and traces over the run core, the jobs and the admin check of /api/metrics.
  telemetry: ["runs", "auth", "jobs"],
  // What operators run against an install (backup, restore, doctor, accounts, secrets).
  operations: ["users", "providers", "sandbox", "browser"],
};
const foundationNames = Object.keys(FOUNDATION);
const LIB_USES = {
  ...FOUNDATION,
  ...Object.fromEntries(Object.entries(FEATURES).map(([folder, uses]) => [folder, [...foundationNames, ...uses]])),
};
LIB_USES.app = Object.keys(LIB_USES);

/** Everything a folder may use: its own list, and what those may use, transitively. */
function allowance(folder, path = []) {
  if (path.includes(folder)) throw new Error(`eslint.config.mjs: lib/ features use each other in a circle: ${[...path, folder].join(" → ")}`);
  const uses = LIB_USES[folder];
  if (!uses) throw new Error(`eslint.config.mjs: lib/${folder} is not listed in FOUNDATION or FEATURES`);
  return new Set(uses.flatMap((used) => [used, ...allowance(used, [...path, folder])]));
}
const libZones = Object.keys(LIB_USES)
  .map((folder) => {
    const allowed = allowance(folder);
    return {
      target: `./lib/${folder}`,
      from: Object.keys(LIB_USES)
        .filter((other) => other !== folder && !allowed.has(other))
        .map((other) => `./lib/${other}`),
      message: `lib/${folder} may not use this folder (eslint.config.mjs, FEATURES): move the shared piece down, or pass it in from lib/app.`,
    };
  })
  .filter((zone) => zone.from.length);

const LIB_RESTRICTED_PATTERNS = ["@/app/*", "@/components/*", "@/tests/*", "**/tests/**"];
const INNGEST_MESSAGE = "Only the job engine (lib/jobs) and inngest/ use Inngest: import NonRetriableError / RetryAfterError from @/lib/jobs/job-errors.";

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: ["node_modules/**", ".next/**", ".data/**", "lib/db/generated/**", "tools/**", "next-env.d.ts", "test-results/**", "playwright-report/**"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // Layering (ARCHITECTURE.md): lib never imports app or components; nothing imports test doubles.
    files: ["lib/**/*.ts", "workers/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: LIB_RESTRICTED_PATTERNS }],
    },
  },
  {
    // Inngest belongs to the job engine (lib/jobs: the engine and its Inngest adapter) and inngest/;
    // domain code takes the retry errors from lib/jobs/job-errors.ts. A later block replaces a
    // rule's options instead of adding to them, hence the patterns above again.
    files: ["lib/**/*.ts"],
    ignores: ["lib/jobs/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "inngest", message: INNGEST_MESSAGE }],
          patterns: [{ group: LIB_RESTRICTED_PATTERNS }, { group: ["inngest/*"], message: INNGEST_MESSAGE }],
        },
      ],
    },
  },
  {
    files: ["lib/**/*.ts", "workers/**/*.ts", "scripts/**/*.ts", "inngest/**/*.ts"],
    // Cycle detection follows imports; packages are not ours to check (and some are too big to parse).
    settings: { "import/ignore": ["node_modules"] },
    rules: {
      "import/no-cycle": ["error", { ignoreExternal: true }],
      "import/no-restricted-paths": ["error", { zones: libZones }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    rules: { "no-restricted-imports": ["error", { patterns: ["@/tests/*", "**/tests/**"] }] },
  },
  {
    // One validated environment: every variable is declared once in lib/config/environment.ts,
    // whose two reads of process.env are the only ones (each marked there).
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "workers/**/*.ts", "inngest/**/*.ts", "instrumentation.ts", "proxy.ts", "next.config.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read the environment through lib/config/environment.ts (environment(), its accessors, or manifestVariable() for a name a manifest gives); declare a new variable in its schema and in .env.example.",
        },
      ],
    },
  },
];

export default config;

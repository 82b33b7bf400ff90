import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

/**
 * The direction of dependencies inside lib/ (ARCHITECTURE.md, "Layers"): a folder may import only
 * folders of lower layers. Domains later in the list build on the earlier ones; nothing reaches up.
 */
const LIB_LAYERS = [
  ["errors.ts", "process-singleton.ts", "config", "observability", "net", "wire", "db", "http", "text"],
  ["providers", "sandbox", "settings", "jobs", "bundles"],
  ["tools", "browser", "memory"],
  ["skills"],
  ["plugins"],
  // agents: profiles, the delegate tools and worker settings (a capability); agent-runs: the worker job.
  ["capabilities", "approvals", "auth", "users", "notifications", "chronos", "agents"],
  ["agent"],
  ["sessions"],
  ["runs"],
  ["agent-runs"],
  ["channels", "job-catalog", "chronos-runner"],
];
const libZones = LIB_LAYERS.flatMap((layer, index) =>
  layer.map((folder) => ({
    target: `./lib/${folder}`,
    from: LIB_LAYERS.slice(index + 1)
      .flat()
      .map((higher) => `./lib/${higher}`),
    message: `lib/${folder} sits below these folders in the layering (eslint.config.mjs, ARCHITECTURE.md); move the shared piece down instead.`,
  })),
).filter((zone) => zone.from.length);

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
      "no-restricted-imports": ["error", { patterns: ["@/app/*", "@/components/*", "@/tests/*", "**/tests/**"] }],
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

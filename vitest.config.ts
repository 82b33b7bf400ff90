import { defineConfig } from "vitest/config";

/**
 * Unit tests run without a database. Integration tests run once per database: always against the
 * embedded PGlite, and also against PostgreSQL when TEST_DATABASE_URL is set. Each integration
 * test file gets a database of its own (a fresh PGlite instance, or a PostgreSQL database cloned
 * from a migrated template), so files run in parallel without seeing each other's rows.
 */
const databases = ["pglite", ...(process.env.TEST_DATABASE_URL ? ["postgres"] : [])];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node", env: { XCLAW_LOG_SILENT: "1" } },
      },
      {
        // Jobs on a real Inngest server (tests/support/inngest-global-setup.ts starts it, or .ci/run
        // does): once per run, not per database, since Inngest holds the runs.
        extends: true,
        test: {
          name: "inngest",
          include: ["tests/inngest/**/*.test.ts"],
          environment: "node",
          env: { XCLAW_LOG_SILENT: "1" },
          globalSetup: ["tests/support/inngest-global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      ...databases.map((database) => ({
        extends: true as const,
        test: {
          name: `integration-${database}`,
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          env: { XCLAW_TEST_DATABASE: database, XCLAW_LOG_SILENT: "1", NEXTAUTH_SECRET: "integration-test-secret-0123456789abcdef" },
          globalSetup: ["tests/support/database-global-setup.ts"],
          setupFiles: ["tests/support/database-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      })),
    ],
  },
});

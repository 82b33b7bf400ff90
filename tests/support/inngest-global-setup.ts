import path from "node:path";
import type { TestProject } from "vitest/node";
import { INNGEST_TOOLS, inngestToolsPresent, startInngestDevServer } from "./inngest-dev-server";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Inngest server's URL, or "" when there is none (the Inngest suites are then skipped). */
    inngestUrl: string;
    /** The port of the app the server was started with (-u), 0 if unknown. */
    inngestAppPort: number;
  }
}

/**
 * The real Inngest server for the "inngest" test project (tests/inngest). `.ci/run` starts one
 * and passes XCLAW_TEST_INNGEST_URL (and XCLAW_TEST_INNGEST_APP_PORT); otherwise this starts
 * `inngest dev` from ../shared/tools/inngest and stops it by its PID when the run ends. Without
 * the tools folder the suites are skipped with a loud message, except in CI (CI=true), where that
 * is a failure.
 */
export default async function setup(project: TestProject) {
  const given = process.env.XCLAW_TEST_INNGEST_URL;
  if (given) {
    project.provide("inngestUrl", given);
    project.provide("inngestAppPort", Number(process.env.XCLAW_TEST_INNGEST_APP_PORT ?? 0));
    return;
  }
  if (!inngestToolsPresent()) {
    const message = `the Inngest server is missing: ${path.join(INNGEST_TOOLS, "inngest-dev.sh")} does not exist, so the Inngest-backed job suites (tests/inngest) cannot run`;
    if (process.env.CI === "true") throw new Error(`${message}.`);
    console.warn(`\n${"!".repeat(100)}\n!! SKIPPED: ${message}.\n${"!".repeat(100)}\n`);
    project.provide("inngestUrl", "");
    project.provide("inngestAppPort", 0);
    return;
  }
  const server = await startInngestDevServer();
  project.provide("inngestUrl", server.url);
  project.provide("inngestAppPort", server.appPort);
  return () => server.stop();
}

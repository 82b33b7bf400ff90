import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../../lib/net/free-port";

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
 * and passes XCLAW_TEST_INNGEST_URL; otherwise this starts `inngest dev` from
 * ../shared/tools/inngest (beside the repository, nothing is downloaded) and stops it by its PID
 * when the run ends. It also listens on 8289, 50052 and 50053, so only one may run on the
 * machine: a running one is an error, not something to share or kill. Without the tools folder
 * the suites are skipped with a loud message, except in CI (CI=true), where that is a failure.
 */
// XCLAW_INNGEST_TOOLS points elsewhere (a git worktree that is not beside shared/).
const TOOLS = process.env.XCLAW_INNGEST_TOOLS || path.resolve(import.meta.dirname, "../../../shared/tools/inngest");
const BINARY_PATTERN = "xclaw-inngest/inngest-";

function otherServer(): string | undefined {
  try {
    return execFileSync("pgrep", ["-af", BINARY_PATTERN], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.XCLAW_TEST_INNGEST_URL;
  if (given) {
    project.provide("inngestUrl", given);
    project.provide("inngestAppPort", Number(process.env.XCLAW_TEST_INNGEST_APP_PORT ?? 0));
    return;
  }
  const script = path.join(TOOLS, "inngest-dev.sh");
  if (!existsSync(script)) {
    const message = `the Inngest server is missing: ${script} does not exist, so the Inngest-backed job suites (tests/inngest) cannot run`;
    if (process.env.CI === "true") throw new Error(`${message}.`);
    console.warn(`\n${"!".repeat(100)}\n!! SKIPPED: ${message}.\n${"!".repeat(100)}\n`);
    project.provide("inngestUrl", "");
    project.provide("inngestAppPort", 0);
    return;
  }
  const running = otherServer();
  if (running) throw new Error(`Another Inngest server is running (it holds ports 8289/50052/50053); stop it first:\n${running}`);
  const port = await freePort();
  // The server's -u app is where tests/inngest/jobs-semantics.test.ts serves; other apps sync themselves with a PUT.
  const appPort = await freePort();
  const pid = Number(execFileSync(script, [String(port), `http://127.0.0.1:${appPort}/api/inngest`], { encoding: "utf8" }).trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error("inngest-dev.sh did not print a PID");
  project.provide("inngestAppPort", appPort);
  project.provide("inngestUrl", `http://127.0.0.1:${port}`);
  return () => {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  };
}

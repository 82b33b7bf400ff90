import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { EXAMPLE_AUTH_SECRET } from "../../lib/config/environment";
import { freePort } from "../../lib/net/free-port";

/**
 * The built Next.js server itself (.next/standalone/server.js, as the image or a service manager
 * runs it, without the launcher) refuses to serve under NODE_ENV=production with a missing, short or example
 * NEXTAUTH_SECRET: instrumentation.ts checks before anything else and exits 1 naming the variable.
 * The launcher's own check is in tests/unit/production-start.test.ts; that the suite's app started
 * at all shows a strong secret passes. Runs in the PGlite pass only: no database is reached.
 */
test.skip(process.env.E2E_DATABASE !== "pglite", "one pass is enough: the database plays no part");
test.describe.configure({ mode: "serial", timeout: 120_000 });

const root = path.resolve(import.meta.dirname, "..", "..");

async function nextStart(secret: string): Promise<{ code: number | null; output: string; answered: boolean }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-secret-"));
  const port = await freePort();
  // Empty rather than removed, so that a developer's .env cannot fill it in again.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXTAUTH_SECRET: secret,
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    XCLAW_DATA_DIR: directory,
    XCLAW_CONFIG: path.join(root, "xclaw.yaml"),
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
  };
  const child = spawn(process.execPath, [path.join(root, ".next", "standalone", "server.js")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // Whether it ever answered a request before exiting (it must not).
  let answered = false;
  const deadline = Date.now() + 90_000;
  while (child.exitCode === null && Date.now() < deadline) {
    answered ||= await fetch(`http://127.0.0.1:${port}/api/health`).then(
      () => true,
      () => false,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
  const code = await exited;
  await rm(directory, { recursive: true, force: true });
  return { code, output, answered };
}

test("the standalone server under NODE_ENV=production refuses a missing, short or example NEXTAUTH_SECRET, naming it", async () => {
  const cases: [string, RegExp][] = [
    ["", /xclaw: NEXTAUTH_SECRET is not set: a production start needs a secret of at least 32 bytes/],
    ["only-twenty-bytes-xx", /xclaw: NEXTAUTH_SECRET is too short \(20 bytes\)/],
    [EXAMPLE_AUTH_SECRET, /xclaw: NEXTAUTH_SECRET is the example value from \.env\.example/],
  ];
  for (const [secret, message] of cases) {
    const result = await nextStart(secret);
    expect(result.code, result.output).toBe(1);
    expect(result.output).toMatch(message);
    expect(result.output).not.toMatch(/^\s+at /m);
    expect(result.answered, "served a request before refusing").toBe(false);
  }
});

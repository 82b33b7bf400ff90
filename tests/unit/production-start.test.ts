import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_AUTH_SECRET } from "@/lib/config/environment";

/**
 * The launcher (`npm start` / `npm run dev` = scripts/start.ts) checks the environment before it
 * starts anything: a production start with a missing, short or example NEXTAUTH_SECRET, or any
 * start with a wrong value, exits 1 with one message naming the variable and no stack trace.
 * (The Next.js server's own check under NODE_ENV=production is in tests/e2e/production-secret.spec.ts:
 * it needs a build.)
 */
const root = path.resolve(import.meta.dirname, "..", "..");
let dataDirectory: string;

beforeAll(async () => {
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-production-start-"));
});
afterAll(async () => {
  await rm(dataDirectory, { recursive: true, force: true });
});

function launch(mode: "start" | "dev", env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Empty rather than removed, so that a developer's .env cannot fill them in again.
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", mode], {
      cwd: root,
      env: { ...process.env, NEXTAUTH_SECRET: "", DATABASE_URL: "", XCLAW_DATA_DIR: dataDirectory, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // A start that got past the check would go on to start a database and the app: stop it in the
    // end (the test then fails on its exit code); the check itself takes seconds.
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 150_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("the launcher refuses to start", () => {
  it("npm start without NEXTAUTH_SECRET, with a short one, or with the example, naming it", { timeout: 200_000 }, async () => {
    const [missing, short, example] = await Promise.all([
      launch("start", {}),
      launch("start", { NEXTAUTH_SECRET: "only-twenty-bytes-xx" }),
      launch("start", { NEXTAUTH_SECRET: EXAMPLE_AUTH_SECRET }),
    ]);
    expect(missing.output).toContain("xclaw: NEXTAUTH_SECRET is not set: a production start needs a secret of at least 32 bytes");
    expect(short.output).toContain("xclaw: NEXTAUTH_SECRET is too short (20 bytes)");
    expect(example.output).toContain("xclaw: NEXTAUTH_SECRET is the example value from .env.example");
    for (const result of [missing, short, example]) {
      expect(result.code, result.output).toBe(1);
      expect(result.output).not.toMatch(/^\s+at /m);
      expect(result.output).not.toContain("embedded database");
    }
  });

  it("npm start without NEXTAUTH_SECRET points at the secret an earlier start generated", { timeout: 200_000 }, async () => {
    const earlier = await mkdtemp(path.join(os.tmpdir(), "xclaw-earlier-start-"));
    try {
      await writeFile(path.join(earlier, "auth-secret"), "generated-by-an-earlier-start-0123456789\n");
      const result = await launch("start", { XCLAW_DATA_DIR: earlier });
      expect(result.code, result.output).toBe(1);
      expect(result.output).toContain(`An earlier start generated ${path.join(earlier, "auth-secret")}: set NEXTAUTH_SECRET to its contents`);
    } finally {
      await rm(earlier, { recursive: true, force: true });
    }
  });

  it("npm run dev with a wrong value, naming the variable and what is wrong", { timeout: 200_000 }, async () => {
    const result = await launch("dev", { PORT: "eighty", LOG_LEVEL: "verbose" });
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain("xclaw: the environment is not valid:\n  - PORT: must be a whole number from 1 to 65535\n  - LOG_LEVEL: must be one of debug, info, warn, error");
    expect(result.output).not.toMatch(/^\s+at /m);
  });
});

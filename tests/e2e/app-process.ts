import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { freePort } from "../../lib/net/free-port";

/**
 * A second (or third) app process for specs that need one of their own: two processes on one
 * PostgreSQL database, or an app started with no model provider. Started exactly as `npm start`
 * does, on its own data directory, port and xclaw.yaml (the repository's, with `config` applied).
 */
const root = path.resolve(import.meta.dirname, "..", "..");

export type TAppProcess = { url: string; process: ChildProcess; directory: string };

export async function startAppProcess(options: {
  name: string;
  /** Environment on top of this process's; a key set to undefined is removed. */
  env: Record<string, string | undefined>;
  /** xclaw.yaml settings, as [path, value] pairs. */
  config?: [string[], unknown][];
}): Promise<TAppProcess> {
  const directory = await mkdtemp(path.join(os.tmpdir(), `xclaw-${options.name}-`));
  const config = parseDocument(await readFile(path.join(root, "xclaw.yaml"), "utf8"));
  config.setIn(["browser", "worker"], "off");
  for (const [key, value] of options.config ?? []) config.setIn(key, value);
  await writeFile(path.join(directory, "xclaw.yaml"), String(config));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    XCLAW_DATA_DIR: directory,
    XCLAW_CONFIG: path.join(directory, "xclaw.yaml"),
    NEXTAUTH_URL: url,
    LOG_LEVEL: "warn",
    // Its own strong secret, as a production start requires (and as each app had before).
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  };
  delete env.BROWSER_WORKER_URL;
  delete env.BROWSER_WORKER_SECRET;
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "start"], { cwd: root, env, stdio: "inherit", detached: true });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`app ${options.name} exited with code ${child.exitCode}`);
    const healthy = await fetch(`${url}/api/health`).then((response) => response.ok, () => false);
    if (healthy) return { url, process: child, directory };
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`app ${options.name} did not start`);
}

export function killAppProcess(app: TAppProcess, signal: NodeJS.Signals) {
  if (app.process.pid && app.process.exitCode === null && app.process.signalCode === null) {
    try {
      process.kill(-app.process.pid, signal);
    } catch {
      // already gone
    }
  }
}

export async function stopAppProcess(app: TAppProcess | undefined) {
  if (!app) return;
  const gone = () => app.process.exitCode !== null || app.process.signalCode !== null;
  const exited = new Promise((resolve) => (gone() ? resolve(undefined) : app.process.on("exit", resolve)));
  killAppProcess(app, "SIGTERM");
  const timer = setTimeout(() => killAppProcess(app, "SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
  await rm(app.directory, { recursive: true, force: true });
}

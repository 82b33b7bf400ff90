import path from "node:path";
import { freePort } from "../../lib/net/free-port";
import { filteredEnvironment, superviseWorker, type TSupervisedProcess } from "../shared/supervise-worker";

/**
 * How `npm run dev` / `npm start` run the browser worker beside Next.js: a supervised child process
 * on a loopback port fixed at start, sharing a secret with the app (workers/shared/supervise-worker.ts).
 */
export type TWorkerProcess = TSupervisedProcess;

/**
 * The worker gets only what it needs: no database URL, auth secret or model keys. Chromium runs
 * without its own sandbox here (--no-sandbox), so whatever the worker has, a hostile page that
 * breaks out of the renderer could read.
 */
const WORKER_ENVIRONMENT = /^(PATH|HOME|USER|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|XDG_\w+|FONTCONFIG_\w+|NODE_ENV|LOG_LEVEL|CHROMIUM_PATH|PLAYWRIGHT_\w+|XCLAW_CONFIG|XCLAW_LOG_SILENT|BROWSER_WORKER_HOST)$/;

export async function spawnBrowserWorker(options: { root: string; env: NodeJS.ProcessEnv; secret: string; port: number; onLog?: (line: string) => void }): Promise<TWorkerProcess | { error: string }> {
  return superviseWorker({
    label: "the browser worker",
    provides: "browser tools",
    entry: path.join(options.root, "workers", "browser", "main.ts"),
    cwd: options.root,
    env: { ...filteredEnvironment(options.env, WORKER_ENVIRONMENT), BROWSER_WORKER_SECRET: options.secret },
    portVariable: "BROWSER_WORKER_PORT",
    port: options.port || (await freePort()),
    stopGraceMs: 15_000,
    onLog: options.onLog,
  });
}

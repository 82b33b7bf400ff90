import path from "node:path";
import { filteredEnvironment, superviseWorker, type TSupervisedProcess } from "../shared/supervise-worker";

/**
 * How `npm run dev` / `npm start` (and the tests) run the plugin host beside Next.js: a supervised
 * child process on a loopback port, sharing a secret with the app, started again if it dies (the
 * plugins it ran are loaded again by the app on its next sync).
 */
export type THostProcess = TSupervisedProcess;

/** The host gets no database URL, auth secret or model keys: only what Node and the logger need. */
const HOST_ENVIRONMENT = /^(PATH|HOME|USER|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|NODE_ENV|LOG_LEVEL|XCLAW_CONFIG|XCLAW_LOG_SILENT)$/;

export async function spawnPluginHost(options: { root: string; env: NodeJS.ProcessEnv; secret: string; port: number; onLog?: (line: string) => void }): Promise<THostProcess | { error: string }> {
  return superviseWorker({
    label: "the plugin host",
    provides: "plugins",
    entry: path.join(options.root, "workers", "plugins", "main.ts"),
    cwd: options.root,
    env: { ...filteredEnvironment(options.env, HOST_ENVIRONMENT), PLUGIN_HOST_SECRET: options.secret },
    portVariable: "PLUGIN_HOST_PORT",
    port: options.port,
    stopGraceMs: 30_000,
    onLog: options.onLog,
  });
}

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "../../lib/net/free-port";

/**
 * How `npm run dev` / `npm start` run the browser worker beside Next.js: a child process on a
 * loopback port fixed at start (so a worker that dies can be started again where the app expects
 * it), sharing a secret with the app. Returns once the worker reports it is ready, or why not.
 */
export type TWorkerProcess = { url: string; pid: () => number | undefined; stop: () => Promise<void> };

/**
 * The worker gets only what it needs: no database URL, auth secret or model keys. Chromium runs
 * without its own sandbox here (--no-sandbox), so whatever the worker has, a hostile page that
 * breaks out of the renderer could read.
 */
function workerEnvironment(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const keep = /^(PATH|HOME|USER|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|XDG_\w+|FONTCONFIG_\w+|NODE_ENV|LOG_LEVEL|CHROMIUM_PATH|PLAYWRIGHT_\w+|XCLAW_CONFIG|XCLAW_LOG_SILENT|BROWSER_WORKER_HOST)$/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => keep.test(name)));
}

type TMessage = { type: "ready"; url: string } | { type: "failed"; reason: string };

export async function spawnBrowserWorker(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  secret: string;
  port: number;
  onLog?: (line: string) => void;
}): Promise<TWorkerProcess | { error: string }> {
  const port = options.port || (await freePort());
  const say = options.onLog ?? ((line: string) => process.stdout.write(`${line}\n`));
  let child: ChildProcess | undefined;
  let stopping = false;
  const restarts: number[] = [];

  const launch = () =>
    new Promise<{ url: string } | { error: string }>((resolve) => {
      const env = { ...workerEnvironment(options.env), BROWSER_WORKER_PORT: String(port), BROWSER_WORKER_SECRET: options.secret } as unknown as NodeJS.ProcessEnv;
      const started = spawn(process.execPath, ["--import", "tsx", path.join(options.root, "workers", "browser", "main.ts")], {
        cwd: options.root,
        env,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child = started;
      let ready = false;
      started.on("message", (message: TMessage) => {
        if (message.type === "ready") {
          ready = true;
          resolve({ url: message.url });
        } else if (message.type === "failed") {
          resolve({ error: message.reason });
        }
      });
      started.on("exit", (code, signal) => {
        if (!ready) return resolve({ error: `the worker exited with ${signal ?? `code ${code}`} before it was ready` });
        // A clean exit means someone stopped it (Ctrl-C reaches the whole process group).
        if (stopping || code === 0 || signal === "SIGTERM" || signal === "SIGINT") return;
        // A worker that dies while the app runs is started again, unless it keeps dying.
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && restarts[0]! < now - 10 * 60_000) restarts.shift();
        if (restarts.length > 5) return say("xclaw: the browser worker keeps exiting; browser tools are unavailable until the next start.");
        say(`xclaw: the browser worker exited (${signal ?? `code ${code}`}); starting it again.`);
        setTimeout(() => {
          if (!stopping) void launch();
        }, 1_000);
      });
    });

  const first = await launch();
  if ("error" in first) return first;
  return {
    url: first.url,
    pid: () => child?.pid,
    stop: async () => {
      stopping = true;
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      const force = setTimeout(() => running.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(force);
    },
  };
}

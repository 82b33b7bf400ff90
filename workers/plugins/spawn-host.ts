import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/**
 * How `npm run dev` / `npm start` (and the tests) run the plugin host beside Next.js: a child
 * process on a loopback port, sharing a secret with the app, started again if it dies (plugins it
 * ran are loaded again by the app on its next sync). Modelled on the browser worker's launcher.
 */
export type THostProcess = { url: string; pid: () => number | undefined; stop: () => Promise<void> };

/** The host gets no database URL, auth secret or model keys: only what Node and the logger need. */
function hostEnvironment(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const keep = /^(PATH|HOME|USER|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|NODE_ENV|LOG_LEVEL|XCLAW_CONFIG|XCLAW_LOG_SILENT)$/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => keep.test(name)));
}

type TMessage = { type: "ready"; url: string } | { type: "failed"; reason: string };

export async function spawnPluginHost(options: { root: string; env: NodeJS.ProcessEnv; secret: string; port: number; onLog?: (line: string) => void }): Promise<THostProcess | { error: string }> {
  const say = options.onLog ?? ((line: string) => process.stdout.write(`${line}\n`));
  let child: ChildProcess | undefined;
  let stopping = false;
  let port = options.port;
  const restarts: number[] = [];

  const launch = () =>
    new Promise<{ url: string } | { error: string }>((resolve) => {
      const env = { ...hostEnvironment(options.env), PLUGIN_HOST_PORT: String(port), PLUGIN_HOST_SECRET: options.secret } as unknown as NodeJS.ProcessEnv;
      const started = spawn(process.execPath, ["--import", "tsx", path.join(options.root, "workers", "plugins", "main.ts")], {
        cwd: options.root,
        env,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child = started;
      let ready = false;
      started.on("message", (message: TMessage) => {
        if (message.type === "ready") {
          ready = true;
          // Restarts come back on the same port, where the app expects the host.
          port = Number(new URL(message.url).port);
          resolve({ url: message.url });
        } else if (message.type === "failed") resolve({ error: message.reason });
      });
      started.on("exit", (code, signal) => {
        if (!ready) return resolve({ error: `the plugin host exited with ${signal ?? `code ${code}`} before it was ready` });
        if (stopping || code === 0 || signal === "SIGTERM" || signal === "SIGINT") return;
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && restarts[0]! < now - 10 * 60_000) restarts.shift();
        if (restarts.length > 5) return say("xclaw: the plugin host keeps exiting; plugins are unavailable until the next start.");
        say(`xclaw: the plugin host exited (${signal ?? `code ${code}`}); starting it again.`);
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
      const force = setTimeout(() => running.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(force);
    },
  };
}

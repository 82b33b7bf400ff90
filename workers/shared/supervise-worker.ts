import { spawn, type ChildProcess } from "node:child_process";

/**
 * How `npm run dev` / `npm start` run a helper process beside Next.js (the browser worker, the
 * plugin host): a child on a loopback port that reports "ready" over IPC, sharing a secret with the
 * app, given only the environment variables it needs, and started again on the same port if it
 * dies while the app runs — unless it keeps dying (more than five times in ten minutes).
 */
export type TSupervisedProcess = { url: string; pid: () => number | undefined; stop: () => Promise<void> };

type TMessage = { type: "ready"; url: string } | { type: "failed"; reason: string };

export async function superviseWorker(options: {
  /** "the browser worker": used in log lines and errors. */
  label: string;
  /** What stops working while it is down, for the give-up line: "browser tools". */
  provides: string;
  entry: string;
  cwd: string;
  /** The environment it gets (already filtered), without the port, which `portVariable` names. */
  env: Record<string, string | undefined>;
  portVariable: string;
  port: number;
  stopGraceMs: number;
  onLog?: (line: string) => void;
}): Promise<TSupervisedProcess | { error: string }> {
  const say = options.onLog ?? ((line: string) => process.stdout.write(`${line}\n`));
  let child: ChildProcess | undefined;
  let stopping = false;
  let port = options.port;
  const restarts: number[] = [];

  const launch = () =>
    new Promise<{ url: string } | { error: string }>((resolve) => {
      const env = { ...options.env, [options.portVariable]: String(port) } as unknown as NodeJS.ProcessEnv;
      const started = spawn(process.execPath, ["--import", "tsx", options.entry], { cwd: options.cwd, env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
      child = started;
      let ready = false;
      started.on("message", (message: TMessage) => {
        if (message.type === "ready") {
          ready = true;
          // Restarts come back on the same port, where the app expects the process.
          port = Number(new URL(message.url).port);
          resolve({ url: message.url });
        } else if (message.type === "failed") resolve({ error: message.reason });
      });
      started.on("exit", (code, signal) => {
        if (!ready) return resolve({ error: `${options.label} exited with ${signal ?? `code ${code}`} before it was ready` });
        // A clean exit means someone stopped it.
        if (stopping || code === 0 || signal === "SIGTERM" || signal === "SIGINT") return;
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && restarts[0]! < now - 10 * 60_000) restarts.shift();
        if (restarts.length > 5) return say(`xclaw: ${options.label} keeps exiting; ${options.provides} are unavailable until the next start.`);
        say(`xclaw: ${options.label} exited (${signal ?? `code ${code}`}); starting it again.`);
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
      // Over IPC: the process ignores the signals that reach the whole group (stop-requests.ts).
      if (running.connected) running.send({ type: "stop" });
      else running.kill("SIGTERM");
      const force = setTimeout(() => running.kill("SIGKILL"), options.stopGraceMs);
      await exited;
      clearTimeout(force);
    },
  };
}

/** Only the variables a helper process needs: never the database URL, auth secret or model keys. */
export function filteredEnvironment(env: NodeJS.ProcessEnv, keep: RegExp): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => keep.test(name)));
}

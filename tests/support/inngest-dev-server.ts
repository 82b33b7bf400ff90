import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { freePort } from "../../lib/net/free-port";

/**
 * Starts `inngest dev` from ../shared/tools/inngest (beside the repository; XCLAW_INNGEST_TOOLS
 * points elsewhere, e.g. from a git worktree): nothing is downloaded. The server also holds ports
 * 8289, 50052 and 50053, so only one may run on the machine: a running one is an error, never
 * something to share or kill. Used by the vitest project "inngest" and by bench:jobs.
 */
export const INNGEST_TOOLS = process.env.XCLAW_INNGEST_TOOLS || path.resolve(import.meta.dirname, "../../../shared/tools/inngest");

export type TInngestDevServer = { url: string; appPort: number; pid: number; stop(): void };

export function inngestToolsPresent(): boolean {
  return existsSync(path.join(INNGEST_TOOLS, "inngest-dev.sh"));
}

function runningServer(): string | undefined {
  try {
    // The unpacked binary's path (in ~/.cache/xclaw-inngest/), not the word "inngest" alone.
    return execFileSync("pgrep", ["-af", "xclaw-inngest/inngest-"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function startInngestDevServer(): Promise<TInngestDevServer> {
  const running = runningServer();
  if (running) throw new Error(`Another Inngest server is running (it holds ports 8289/50052/50053); stop it first:\n${running}`);
  const port = await freePort();
  let appPort = await freePort();
  while (appPort === port) appPort = await freePort();
  // -u is the app the server syncs every 5 s; other apps sync themselves with a PUT.
  const output = execFileSync(path.join(INNGEST_TOOLS, "inngest-dev.sh"), [String(port), `http://127.0.0.1:${appPort}/api/inngest`], { encoding: "utf8" });
  const pid = Number(output.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`inngest-dev.sh did not print a PID: ${output}`);
  return {
    url: `http://127.0.0.1:${port}`,
    appPort,
    pid,
    stop() {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    },
  };
}

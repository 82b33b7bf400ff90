/**
 * The browser worker process: `npm run browser-worker` (or started by `npm run dev` / `npm start`
 * beside the app). Settings come from xclaw.yaml (`browser:`), addresses and the secret from the
 * environment:
 *
 *   BROWSER_WORKER_SECRET   required; the app sends it with every request
 *   BROWSER_WORKER_PORT     default browser.port (0 = any free port)
 *   BROWSER_WORKER_HOST     default 127.0.0.1; only change it behind a private network
 *   CHROMIUM_PATH           default /usr/bin/chromium, then Playwright's own browser
 *
 * SIGTERM / SIGINT: finish running actions (up to 10 s), close every context and the browser.
 */
import { ConfigError, getBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { createLogger } from "@/lib/observability/logger";
import { findChromium, noChromiumMessage } from "../../lib/browser/chromium";
import { startBrowserWorker } from "./worker";
import { onStopRequest } from "../shared/stop-requests";

const log = createLogger("browser-worker");

function fail(message: string): never {
  process.stderr.write(`\nxclaw browser worker: ${message}\n\n`);
  process.send?.({ type: "failed", reason: message.split("\n")[0] });
  process.exit(1);
}

async function main() {
  let config;
  let variables;
  try {
    variables = environment();
    config = getBehaviourConfig().browser;
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const secret = variables.BROWSER_WORKER_SECRET ?? "";
  if (secret.length < 16) fail("BROWSER_WORKER_SECRET must be set to a random string of at least 16 characters.");
  const executablePath = findChromium();
  if (!executablePath) fail(noChromiumMessage("the browser worker"));
  // xclaw.yaml's browser.port is checked by its own schema, BROWSER_WORKER_PORT by the environment's.
  const port = variables.BROWSER_WORKER_PORT ?? config.port;

  let worker;
  try {
    worker = await startBrowserWorker({
      secret,
      executablePath,
      host: variables.BROWSER_WORKER_HOST,
      port,
      allowedPrivateHosts: config.allowedPrivateHosts,
      maxContexts: config.maxContexts,
      idleMs: config.idleMinutes * 60_000,
      navigationTimeoutMs: config.navigationTimeoutSeconds * 1000,
      networkIdleMs: config.networkIdleSeconds * 1000,
      contentPageCharacters: config.contentPageCharacters,
      log,
    });
  } catch (error) {
    fail(`could not start: ${(error as Error).message}`);
  }
  log.info("browser worker ready", { url: worker.url, chromium: executablePath, maxContexts: config.maxContexts });
  process.send?.({ type: "ready", url: worker.url });

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info("browser worker stopping", { why });
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await worker.close(10_000);
    process.exit(0);
  };
  // Started by the launcher: it says when (after the app has drained); alone: SIGTERM / SIGINT.
  onStopRequest((why) => void stop(why));
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));

import type { TNodeRoute } from "./lib/http/server-hook";

/**
 * Next.js calls register() once in every server process before it serves requests (`next dev` and
 * `next start` alike, never during `next build`). Node.js modules are imported inside, so the edge
 * runtime never sees them.
 * - The environment is checked first (lib/config/environment.ts): a wrong value, or under
 *   NODE_ENV=production a missing, short or example NEXTAUTH_SECRET, stops the server with a
 *   message that names the variable, however it was started (`npm start`, `next start`, an image).
 * - Each request is stamped with its real TCP peer address, so rate limits cannot be dodged with a
 *   forged X-Forwarded-For (lib/auth/client-ip.ts explains the mechanism), and in production the
 *   chat route is answered before Next.js (lib/http/server-hook.ts).
 * - With jobs.runner: local, each process runs the embedded job runner; processes share the work
 *   through the database.
 * - The enabled plugins are started in the plugin host.
 * - In production, SIGTERM drains the process (lib/app/shutdown.ts).
 * installApp() (lib/app) comes first: it hands the capability list and the job catalog to the run
 * core and the jobs engine for every module graph of this process.
 */
export async function register() {
  // Next.js replaces process.env.NEXT_RUNTIME at build time, once per runtime: the literal test is
  // what keeps the Node.js imports below out of an edge bundle, so it cannot go through the schema.
  // eslint-disable-next-line no-restricted-properties
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkEnvironmentOrExit, environment, isProduction } = await import("./lib/config/environment");
  checkEnvironmentOrExit();
  const { installApp } = await import("./lib/app/install-app");
  installApp();
  // The configured models' tokenizers (lib/providers/token-count.ts) are built now, not on a chat.
  const { configuredProviders } = await import("./lib/providers/registry");
  const { preloadTokenizers } = await import("./lib/providers/token-count");
  await preloadTokenizers(configuredProviders().map((provider) => provider.model));
  const { installServerHook } = await import("./lib/http/server-hook");
  const { stampPeerAddress } = await import("./lib/auth/client-ip");
  // A production server answers POST /api/chat before Next.js (lib/http/server-hook.ts says why);
  // development keeps the route handler, which reloads when its code changes.
  const routes: Record<string, TNodeRoute> = isProduction() ? (await import("./lib/app/channels")).channelNodeRoutes() : {};
  installServerHook({ prepare: stampPeerAddress, routes });
  const { startAppJobRunner } = await import("./lib/app/app-job-runner");
  await startAppJobRunner();
  // Plugins: the host (started by the launcher) is told which plugins to run; not awaited, so a
  // slow plugin never delays the server.
  const { syncPlugins } = await import("./lib/plugins/plugin-runtime");
  void syncPlugins();
  // A production server started by the launcher drains on SIGTERM instead of Next.js exiting at
  // once (lib/app/shutdown.ts); without NEXT_MANUAL_SIG_HANDLE Next.js keeps its own handlers.
  if (isProduction() && environment().NEXT_MANUAL_SIG_HANDLE) (await import("./lib/app/shutdown")).installShutdownHandlers();
}

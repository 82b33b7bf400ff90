/**
 * Next.js calls register() once in every server process before it serves requests (`next dev` and
 * `next start` alike, never during `next build`). Node.js modules are imported inside, so the edge
 * runtime never sees them.
 * - Each request is stamped with its real TCP peer address, so rate limits cannot be dodged with a
 *   forged X-Forwarded-For (lib/auth/client-ip.ts explains the mechanism).
 * - With jobs.runner: local, each process runs the embedded job runner; processes share the work
 *   through the database.
 * - The enabled plugins are started in the plugin host.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installPeerAddressHook } = await import("./lib/auth/client-ip");
  installPeerAddressHook();
  const { startAppJobRunner } = await import("./lib/job-catalog/start-runner");
  await startAppJobRunner();
  // Plugins: the host (started by the launcher) is told which plugins to run; not awaited, so a
  // slow plugin never delays the server.
  const { syncPlugins } = await import("./lib/plugins/plugin-runtime");
  void syncPlugins();
}

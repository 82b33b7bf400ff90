/**
 * Next.js calls register() once in every server process before it serves requests (never during
 * `next build`). With jobs.runner: local, each process runs the embedded job runner: they share
 * the work through the database. Node.js modules are imported inside, so the edge runtime never
 * sees them.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startAppJobRunner } = await import("./lib/jobs/start-runner");
  await startAppJobRunner();
}

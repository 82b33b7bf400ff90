import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { inngestLogger } from "@/lib/jobs/inngest-client";
import { createJobRegistry } from "@/lib/jobs/job-registry";

/**
 * An app that a real Inngest server (../shared/tools/inngest, started by .ci/run or by
 * tests/support/inngest-global-setup.ts) runs jobs on: a plain Node HTTP server in this process
 * serving the SDK's `serve` handler at /api/inngest for the given jobs, synced with the server at
 * once (a PUT to its own handler). Also used by the crash test's app process
 * (tests/support/inngest-app-process.ts) and by bench/jobs.ts.
 */
export type TInngestApp = { url: string; client: Inngest; close(): Promise<void> };

export async function startInngestApp(options: { baseUrl: string; appId: string; jobs: readonly TAnyJobDefinition[]; port?: number }): Promise<TInngestApp> {
  const client = new Inngest({ id: options.appId, isDev: true, baseUrl: options.baseUrl, logger: inngestLogger() });
  const registry = createJobRegistry(options.jobs);
  const functions = options.jobs.map((job) => toInngestFunction(client, job, { registry, maxStepOutputBytes: 512 * 1024 }));
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/api/inngest`;
  // The URL Inngest calls back (the SDK would otherwise take it from the sync request's Host).
  const handler = serve({ client, functions, serveOrigin: `http://127.0.0.1:${port}`, servePath: "/api/inngest" });
  server.on("request", (request, response) => {
    if (request.url?.startsWith("/api/inngest")) return void handler(request, response);
    response.writeHead(404).end();
  });
  // The SDK's serve handler answers a PUT by registering its functions with the server.
  const sync = await fetch(url, { method: "PUT" });
  if (!sync.ok) throw new Error(`syncing ${options.appId} with Inngest failed: ${sync.status} ${await sync.text()}`);
  return {
    url,
    client,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { appVersion } from "@/lib/config/environment";
import { checkDatabaseHealth } from "@/lib/db/health";
import { route } from "@/lib/http/route";
import { createLogger } from "@/lib/observability/logger";
import { isDraining } from "@/lib/runs/drain-state";

const log = createLogger("health");

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store" };

/**
 * Public on purpose (load balancers and monitors call it); it reveals no data. `GET /api/health` is
 * the liveness probe; `?ready=1` is readiness, which turns 503 the moment a shutdown begins, so a
 * load balancer stops sending new work while runs in progress finish (lib/app/shutdown.ts).
 */
export const GET = route(async (request) => {
  if (new URL(request.url).searchParams.has("ready") && isDraining()) {
    return Response.json({ status: "draining", reason: "shutting down: runs in progress are finishing", version: appVersion() }, { status: 503, headers: { ...NO_STORE, "retry-after": "5" } });
  }
  try {
    const database = await checkDatabaseHealth();
    return Response.json({ status: "ok", database, version: appVersion() }, { headers: NO_STORE });
  } catch (error) {
    log.warn("database unreachable", { error });
    return Response.json({ status: "unavailable", reason: `database unreachable: ${(error as Error).message}`, version: appVersion() }, { status: 503, headers: NO_STORE });
  }
});

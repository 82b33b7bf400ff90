import { appVersion } from "@/lib/config/environment";
import { checkDatabaseHealth } from "@/lib/db/health";
import { route } from "@/lib/http/route";
import { createLogger } from "@/lib/observability/logger";

const log = createLogger("health");

export const dynamic = "force-dynamic";

// Public on purpose (load balancers and monitors call it); it reveals no data.
export const GET = route(async () => {
  try {
    const database = await checkDatabaseHealth();
    return Response.json({ status: "ok", database, version: appVersion() }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    log.warn("database unreachable", { error });
    return Response.json(
      { status: "unavailable", reason: `database unreachable: ${(error as Error).message}`, version: appVersion() },
      { status: 503, headers: { "cache-control": "no-store" } },
    );
  }
});

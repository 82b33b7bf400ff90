import { getBehaviourConfig } from "@/lib/config/behaviour";
import { databaseUrl, isEmbeddedDatabaseUrl, onDatabaseDisconnect } from "@/lib/db/client";
import { PostgresRunEventBus } from "./postgres-run-event-bus";
import { MemoryRunEventBus, type TRunEventBus } from "./run-event-bus";

/**
 * The bus this process uses (xclaw.yaml `runs.events`): auto picks postgres for a PostgreSQL
 * server and memory for the embedded database, which only one process can open anyway.
 */
const globalBus = globalThis as unknown as { xclawRunEventBus?: { key: string; bus: TRunEventBus } };

export function runEventBus(): TRunEventBus {
  const mode = getBehaviourConfig().runs.events;
  const url = databaseUrl();
  const postgres = mode === "postgres" || (mode === "auto" && !isEmbeddedDatabaseUrl(url));
  const key = `${postgres ? "postgres" : "memory"}:${url}`;
  if (globalBus.xclawRunEventBus?.key === key) return globalBus.xclawRunEventBus.bus;
  void globalBus.xclawRunEventBus?.bus.close();
  const bus: TRunEventBus = postgres ? new PostgresRunEventBus(url) : new MemoryRunEventBus();
  globalBus.xclawRunEventBus = { key, bus };
  onDatabaseDisconnect(async () => {
    if (globalBus.xclawRunEventBus?.bus === bus) globalBus.xclawRunEventBus = undefined;
    await bus.close();
  });
  return bus;
}

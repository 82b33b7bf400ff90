import { getBehaviourConfig } from "@/lib/config/behaviour";
import { databaseUrl, isEmbeddedDatabaseUrl, onDatabaseDisconnect } from "@/lib/db/client";
import { processSingleton } from "@/lib/process-singleton";
import { PostgresRunEventBus } from "./postgres-run-event-bus";
import { MemoryRunEventBus, type TRunEventBus } from "./run-event-bus";

/**
 * The bus this process uses (xclaw.yaml `runs.events`): auto picks postgres for a PostgreSQL
 * server and memory for the embedded database, which only one process can open anyway.
 */
// One bus per process, replaced (and the old one closed) when the mode or database changes.
const slot = processSingleton("runs.event-bus", (): { current?: { key: string; bus: TRunEventBus } } => ({}));

export function runEventBus(): TRunEventBus {
  const mode = getBehaviourConfig().runs.events;
  const url = databaseUrl();
  const postgres = mode === "postgres" || (mode === "auto" && !isEmbeddedDatabaseUrl(url));
  const key = `${postgres ? "postgres" : "memory"}:${url}`;
  if (slot.current?.key === key) return slot.current.bus;
  void slot.current?.bus.close();
  const bus: TRunEventBus = postgres ? new PostgresRunEventBus(url) : new MemoryRunEventBus();
  slot.current = { key, bus };
  onDatabaseDisconnect(async () => {
    if (slot.current?.bus === bus) slot.current = undefined;
    await bus.close();
  });
  return bus;
}

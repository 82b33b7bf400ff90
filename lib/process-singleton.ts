/**
 * State that must exist once per process, not once per module instance. Next.js loads
 * instrumentation and the route handlers as separate module graphs (and development reloads
 * modules), so a module-level value can exist several times in one process; this one lives on
 * globalThis under `Symbol.for("xclaw.<key>")`, which every copy of a module finds.
 *
 * `make` runs on first use only. When it throws nothing is kept, so the next caller tries again.
 * State that changes over time (a runner being started, a bus replaced when its settings change)
 * is kept in an object this returns, which the module updates.
 */
export function processSingleton<T>(key: string, make: () => T): T {
  const slot = Symbol.for(`xclaw.${key}`);
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  if (!(slot in store)) store[slot] = make();
  return store[slot] as T;
}

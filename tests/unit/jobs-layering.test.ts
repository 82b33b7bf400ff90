import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * The catalog imports job definitions from every domain, and those use the engine; if an engine
 * module imported the catalog back, loading any job would load them all, in a cycle. Only the
 * entry points may import it.
 */
const ENTRY_POINTS = new Set(["catalog.ts", "send-event.ts", "start-runner.ts", "admin-runs.ts"]);

it("no engine module of lib/jobs imports the catalog", () => {
  const directory = path.resolve(import.meta.dirname, "../../lib/jobs");
  const engine = readdirSync(directory).filter((file) => file.endsWith(".ts") && !ENTRY_POINTS.has(file));
  expect(engine.length).toBeGreaterThan(8);
  const offenders = engine.filter((file) => /from\s+["'](\.\/catalog|@\/lib\/jobs\/catalog)["']/.test(readFileSync(path.join(directory, file), "utf8")));
  expect(offenders).toEqual([]);
  for (const file of readdirSync(path.join(directory, "builtin"))) {
    expect(readFileSync(path.join(directory, "builtin", file), "utf8")).not.toMatch(/jobs\/(catalog|send-event|start-runner|admin-runs)["']/);
  }
});

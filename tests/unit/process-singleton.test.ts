import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * processSingleton must give every copy of a module the same value, as Next.js loads some modules
 * twice in one process (instrumentation and the route handlers are separate module graphs).
 * vi.resetModules() + a fresh import is such a second copy.
 */
const used: string[] = [];
function key(name: string): string {
  const unique = `test.${name}.${Math.random().toString(36).slice(2)}`;
  used.push(unique);
  return unique;
}

async function freshCopy() {
  vi.resetModules();
  return (await import("@/lib/process-singleton")).processSingleton;
}

afterEach(() => {
  for (const name of used.splice(0)) delete (globalThis as Record<symbol, unknown>)[Symbol.for(`xclaw.${name}`)];
});

describe("processSingleton", () => {
  it("makes the value once and gives a second copy of the module the same one", async () => {
    const name = key("shared");
    const make = vi.fn(() => new Map<string, number>());
    const first = (await freshCopy())(name, make);
    const second = (await freshCopy())(name, make);
    expect(second).toBe(first);
    expect(make).toHaveBeenCalledTimes(1);
    first.set("a", 1);
    expect(second.get("a")).toBe(1);
  });

  it("keeps the value on globalThis under Symbol.for('xclaw.<key>')", async () => {
    const name = key("symbol");
    const value = (await freshCopy())(name, () => ({ id: 7 }));
    expect((globalThis as Record<symbol, unknown>)[Symbol.for(`xclaw.${name}`)]).toBe(value);
  });

  it("keeps different keys apart", async () => {
    const processSingleton = await freshCopy();
    const a = processSingleton(key("a"), () => ({ name: "a" }));
    const b = processSingleton(key("b"), () => ({ name: "b" }));
    expect(a).not.toBe(b);
    expect([a.name, b.name]).toEqual(["a", "b"]);
  });

  it("keeps nothing when make throws, so the next caller tries again", async () => {
    const processSingleton = await freshCopy();
    const name = key("failing");
    let attempts = 0;
    const make = () => {
      attempts += 1;
      if (attempts === 1) throw new Error("not yet");
      return "ready";
    };
    expect(() => processSingleton(name, make)).toThrow("not yet");
    expect(processSingleton(name, make)).toBe("ready");
    expect(processSingleton(name, make)).toBe("ready");
    expect(attempts).toBe(2);
  });

  it("keeps a value made as undefined, without making it again", async () => {
    const processSingleton = await freshCopy();
    const name = key("undefined");
    const make = vi.fn(() => undefined);
    expect(processSingleton(name, make)).toBeUndefined();
    expect(processSingleton(name, make)).toBeUndefined();
    expect(make).toHaveBeenCalledTimes(1);
  });
});

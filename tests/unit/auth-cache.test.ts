import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_CACHE_SECONDS, forgetAuth, lookUpAuth } from "@/lib/auth/auth-cache";
import type { User } from "@/lib/db/generated/client";

/** The credential cache's lookups, with lookups the test resolves itself. */
function controlledLookup() {
  let calls = 0;
  const resolvers: ((value: { user: User } | undefined) => void)[] = [];
  const lookup = () => {
    calls++;
    return new Promise<{ user: User } | undefined>((resolve) => resolvers.push(resolve));
  };
  return { lookup, calls: () => calls, resolve: (index: number, value: { user: User } | undefined) => resolvers[index]!(value) };
}

const alice = { id: "user-alice", email: "alice@example.com" } as User;
const bob = { id: "user-bob", email: "bob@example.com" } as User;

describe("lookUpAuth", () => {
  it("shares a lookup under way, then remembers its answer", async () => {
    forgetAuth();
    const { lookup, calls, resolve } = controlledLookup();
    const first = lookUpAuth("token:a", lookup);
    const second = lookUpAuth("token:a", lookup);
    expect(calls()).toBe(1);
    resolve(0, { user: alice });
    expect((await first)?.user.id).toBe("user-alice");
    expect((await second)?.user.id).toBe("user-alice");
    expect((await lookUpAuth("token:a", lookup))?.user.id).toBe("user-alice");
    expect(calls()).toBe(1);
  });

  it("neither shares nor remembers a lookup that was under way when access ended", async () => {
    forgetAuth();
    const { lookup, calls, resolve } = controlledLookup();
    const before = lookUpAuth("token:b", lookup);
    // Revoked, disabled, signed out: the lookup under way read the account before that.
    forgetAuth(alice.id);
    const after = lookUpAuth("token:b", lookup);
    expect(calls()).toBe(2);
    resolve(0, { user: alice });
    resolve(1, undefined);
    expect((await before)?.user.id).toBe("user-alice");
    expect(await after).toBeUndefined();
    // The old answer was not remembered: the next request looks again.
    void lookUpAuth("token:b", lookup);
    expect(calls()).toBe(3);
  });

  it("does not remember a failed lookup", async () => {
    forgetAuth();
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error("connection lost");
    };
    await expect(lookUpAuth("token:c", failing)).rejects.toThrow("connection lost");
    await expect(lookUpAuth("token:c", failing)).rejects.toThrow("connection lost");
    expect(calls).toBe(2);
  });
});

// lru-cache reads the clock with performance.now() and reuses a reading for 1 ms: after the clock
// is moved or put back, the next check waits that long.
const clockSettled = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("remembered credentials", () => {
  afterEach(async () => {
    vi.restoreAllMocks();
    await clockSettled();
  });

  it("are looked up again once AUTH_CACHE_SECONDS have passed", async () => {
    forgetAuth();
    const start = performance.now();
    const clock = vi.spyOn(performance, "now").mockReturnValue(start);
    const moveClock = async (milliseconds: number) => {
      clock.mockReturnValue(start + milliseconds);
      await clockSettled();
    };
    const { lookup, calls, resolve } = controlledLookup();
    const first = lookUpAuth("token:d", lookup);
    resolve(0, { user: alice });
    await first;
    await moveClock(AUTH_CACHE_SECONDS * 1000 - 100);
    expect((await lookUpAuth("token:d", lookup))?.user.id).toBe("user-alice");
    expect(calls()).toBe(1);
    await moveClock(AUTH_CACHE_SECONDS * 1000 + 100);
    void lookUpAuth("token:d", lookup);
    expect(calls()).toBe(2);
  });

  it("are forgotten for the user whose access ended, and kept for everyone else", async () => {
    forgetAuth();
    const { lookup, calls, resolve } = controlledLookup();
    const forAlice = lookUpAuth("cookie:alice", lookup);
    const forBob = lookUpAuth("cookie:bob", lookup);
    resolve(0, { user: alice });
    resolve(1, { user: bob });
    await Promise.all([forAlice, forBob]);
    forgetAuth(alice.id);
    const bobAgain = lookUpAuth("cookie:bob", lookup);
    expect(calls()).toBe(2);
    expect((await bobAgain)?.user.id).toBe("user-bob");
    void lookUpAuth("cookie:alice", lookup);
    expect(calls()).toBe(3);
  });

  it("never hold more than 10,000 answers: the least recently used goes first", async () => {
    forgetAuth();
    let calls = 0;
    const lookup = async () => {
      calls++;
      return { user: alice };
    };
    await lookUpAuth("token:kept", lookup);
    for (let index = 0; index < 10_000; index++) {
      await lookUpAuth(`token:${index}`, lookup);
      // Used again and again, so it is never the least recently used.
      if (index % 1_000 === 0) await lookUpAuth("token:kept", lookup);
    }
    expect(calls).toBe(10_001);
    await lookUpAuth("token:kept", lookup);
    expect(calls).toBe(10_001);
    // The first of the others was pushed out.
    await lookUpAuth("token:0", lookup);
    expect(calls).toBe(10_002);
  });
});

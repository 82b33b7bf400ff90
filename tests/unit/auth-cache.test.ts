import { describe, expect, it } from "vitest";
import { forgetAuth, lookUpAuth } from "@/lib/auth/auth-cache";
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

import { describe, expect, it } from "vitest";
import { isTransientDatabaseError, withDatabaseRetry } from "@/lib/db/retry";

describe("database retries", () => {
  it("tells errors about the connection from errors about the statement", () => {
    expect(isTransientDatabaseError(Object.assign(new Error("deadlock detected"), { code: "40P01" }))).toBe(true);
    expect(isTransientDatabaseError(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isTransientDatabaseError(new Error("Transaction API error: Unable to start a transaction in the given time."))).toBe(true);
    // Prisma wraps the driver's error: the SQLSTATE sits in meta.driverAdapterError or in a cause.
    expect(isTransientDatabaseError({ message: "query failed", meta: { driverAdapterError: { code: "57P01" } } })).toBe(true);
    expect(isTransientDatabaseError(new Error("outer", { cause: new Error("Connection terminated unexpectedly") }))).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }))).toBe(false);
    expect(isTransientDatabaseError(undefined)).toBe(false);
  });

  it("retries a transient failure until it succeeds, and throws any other error at once", async () => {
    let calls = 0;
    const value = await withDatabaseRetry(
      "test write",
      async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error("serialization failure"), { code: "40001" });
        return "written";
      },
      { baseDelayMs: 1 },
    );
    expect(value).toBe("written");
    expect(calls).toBe(3);

    let constraintCalls = 0;
    const failing = withDatabaseRetry(
      "test write",
      async () => {
        constraintCalls++;
        throw Object.assign(new Error("violates check constraint"), { code: "23514" });
      },
      { baseDelayMs: 1 },
    );
    await expect(failing).rejects.toThrow("violates check constraint");
    expect(constraintCalls).toBe(1);

    let transientCalls = 0;
    const exhausted = withDatabaseRetry(
      "test write",
      async () => {
        transientCalls++;
        throw new Error("ECONNRESET");
      },
      { attempts: 2, baseDelayMs: 1 },
    );
    await expect(exhausted).rejects.toThrow("ECONNRESET");
    expect(transientCalls).toBe(2);
  });
});

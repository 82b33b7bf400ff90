import { readFileSync } from "node:fs";
import { NonRetriableError } from "inngest";
import { describe, expect, it } from "vitest";
import { formatDuration } from "@/components/admin/jobs-status-badge";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { durationMs, validateCron } from "@/lib/jobs/define-job";
import { retryDelayMs } from "@/lib/jobs/retry-delay";
import { compileKeyExpression } from "@/lib/jobs/key-expression";
import { describeThrown, toStoredJson } from "@/lib/jobs/step-output";

describe("jobs settings in xclaw.yaml", () => {
  it("has defaults and reads the committed file", () => {
    expect(parseBehaviourConfig("").jobs).toEqual({
      runner: "local",
      keepDays: 14,
      concurrency: 10,
      leaseSeconds: 30,
      pollIntervalMs: 1_000,
      maxStepOutputBytes: 512 * 1024,
      retryBaseDelayMs: 1_000,
    });
    expect(parseBehaviourConfig(readFileSync("xclaw.yaml", "utf8")).jobs.runner).toBe("local");
  });

  it("names a wrong runner", () => {
    expect(() => parseBehaviourConfig("jobs:\n  runner: cloud\n")).toThrowError(/jobs\.runner: Invalid option: expected one of "local"\|"inngest"/);
  });
});

describe("key expressions", () => {
  it("read event data by path, own properties only", () => {
    const key = compileKeyExpression("event.data.user.id", "test");
    expect(key({ user: { id: 7 } })).toBe("7");
    expect(key({ user: {} })).toBe("");
    expect(key({})).toBe("");
    expect(compileKeyExpression("event.data.toString", "test")({})).toBe("");
    expect(compileKeyExpression("event.data.tags", "test")({ tags: ["a", "b"] })).toBe('["a","b"]');
  });

  it("refuse anything but event.data paths (no code is evaluated)", () => {
    for (const expression of ["data.userId", "event.data", "event.data.a + 'x'", "event.data.__proto__.x;1", "event.data[0]"]) {
      expect(() => compileKeyExpression(expression, "test")).toThrow(/is not a key expression/);
    }
  });
});

describe("durations and cron", () => {
  it("accept Inngest's duration format", () => {
    expect(durationMs("1h30m", "x")).toBe(5_400_000);
    expect(durationMs(250, "x")).toBe(250);
    expect(() => durationMs("soon", "timeouts.start")).toThrow(/timeouts.start: .*"30s"/);
  });

  it("accept five-field cron only, with a valid time zone", () => {
    expect(() => validateCron("*/15 * * * *", "Europe/Berlin", "job")).not.toThrow();
    expect(() => validateCron("0 */15 * * * *", undefined, "job")).toThrow(/exactly five fields/);
    expect(() => validateCron("@hourly", undefined, "job")).toThrow(/exactly five fields/);
    expect(() => validateCron("61 * * * *", undefined, "job")).toThrow(/is not valid/);
  });
});

describe("stored step results", () => {
  it("round-trip through JSON like a replay sees them", () => {
    expect(toStoredJson("step", { at: new Date("2026-01-01T00:00:00Z"), n: 1 }, 1_000).value).toEqual({ at: "2026-01-01T00:00:00.000Z", n: 1 });
    expect(toStoredJson("step", undefined, 1_000)).toEqual({ json: "null", value: null });
  });

  it("refuse values JSON would lose or cannot hold, and oversized ones, as not retriable", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [BigInt(1), cycle, new Map([[1, 2]]), { fn: () => 1 }, () => 1]) {
      expect(() => toStoredJson('step "s"', value, 1_000)).toThrow(NonRetriableError);
    }
    expect(() => toStoredJson('step "s"', "x".repeat(2_000), 1_024)).toThrow('step "s" returned 2.0 KB, more than the 1.0 KB a step may store');
  });

  it("describe non-Error throws", () => {
    expect(describeThrown(new Error("boom"))).toBe("boom");
    expect(describeThrown({ code: 42 })).toBe('the job threw a non-Error value: {"code":42}');
    expect(describeThrown(undefined)).toBe("the job threw a non-Error value: undefined");
  });
});

describe("retry backoff", () => {
  it("grows exponentially with jitter and is capped at ten minutes", () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const delay = retryDelayMs(attempt, 1_000);
      expect(delay).toBeGreaterThanOrEqual(500 * 2 ** attempt);
      expect(delay).toBeLessThanOrEqual(1_000 * 2 ** attempt);
    }
    expect(retryDelayMs(30, 1_000)).toBeLessThanOrEqual(600_000);
    expect(new Set(Array.from({ length: 20 }, () => retryDelayMs(5, 1_000))).size).toBeGreaterThan(1);
  });
});

describe("admin durations", () => {
  it("read well", () => {
    expect([formatDuration(null), formatDuration(850), formatDuration(12_340), formatDuration(242_000), formatDuration(7_500_000)]).toEqual([
      "—",
      "850 ms",
      "12.3 s",
      "4 min 2 s",
      "2 h 5 min",
    ]);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { createLogger, redact, runWithRequestId } from "@/lib/observability/logger";

describe("structured logger", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes one JSON line with the request id and redacts secrets at any depth", () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const previous = process.env.XCLAW_LOG_SILENT;
    delete process.env.XCLAW_LOG_SILENT;
    resetEnvironment();
    try {
      runWithRequestId("req-1", () =>
        createLogger("test").info("hello", { body: { email: "a@example.com", password: "hunter2", nested: [{ apiKey: "sk-1" }] }, authorization: "Bearer xclaw_abc" }),
      );
    } finally {
      if (previous !== undefined) process.env.XCLAW_LOG_SILENT = previous;
      resetEnvironment();
    }
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "info", msg: "hello", scope: "test", requestId: "req-1" });
    expect(line.body).toEqual({ email: "a@example.com", password: "[redacted]", nested: [{ apiKey: "[redacted]" }] });
    expect(line.authorization).toBe("[redacted]");
    expect(lines[0]).not.toContain("hunter2");
    expect(lines[0]).not.toContain("xclaw_abc");
  });

  it("serializes errors with their cause", () => {
    const error = new Error("outer", { cause: new Error("inner") });
    expect(redact({ error })).toMatchObject({ error: { name: "Error", message: "outer", cause: { message: "inner" } } });
  });
});

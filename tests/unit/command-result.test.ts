import { describe, expect, it } from "vitest";
import { E2bSandbox, type TRemoteSandbox } from "@/lib/sandbox/e2b-sandbox";
import { clipMiddle, formatCommandResult, HeadTailBuffer, type TCommandResult } from "@/lib/sandbox/types";

/**
 * The agent keeps the first 50,000 characters of a tool observation (lib/agent/run-agent.ts). What
 * a command reports must fit before that cut, or the model never learns that the command was killed
 * or how it exited: the status lines come last.
 */
const AGENT_CUT = 50_000;

const result = (overrides: Partial<TCommandResult>): TCommandResult => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false, truncated: false, durationMs: 12, ...overrides });

describe("formatCommandResult", () => {
  it("keeps the status lines within the agent's cut, however long the output", () => {
    const text = formatCommandResult(
      result({ stdout: "a".repeat(65_536), stderr: "e".repeat(65_536), timedOut: true, exitCode: null, notes: ["[killed: out of memory; the command may use 1024 MiB in all, /tmp included]"] }),
    );
    expect(text.length).toBeLessThanOrEqual(AGENT_CUT);
    expect(text.slice(0, AGENT_CUT)).toMatch(/\[killed: out of memory[^\n]*\]\n\[killed: the command ran longer than the time limit\]\n\[exit code none · 12 ms\]$/);
    expect(text).toContain("[stderr]\n");
  });

  it("shows the start and the end of long output with a marker between", () => {
    const text = formatCommandResult(result({ stdout: `START\n${"x".repeat(100_000)}\nEND`, exitCode: 2 }));
    expect(text).toMatch(/^START\n/);
    expect(text).toMatch(/\n\[output truncated: \d+ characters cut here\]\n/);
    expect(text).toMatch(/\nEND\n\[exit code 2 · 12 ms\]$/);
  });

  it("gives short stderr all it needs and long stdout the rest", () => {
    const text = formatCommandResult(result({ stdout: "o".repeat(100_000), stderr: "Traceback: the real error", exitCode: 1 }), 10_000);
    expect(text.length).toBeLessThanOrEqual(10_000);
    expect(text).toContain("[stderr]\nTraceback: the real error\n[exit code 1");
  });

  it("leaves short results as they were", () => {
    expect(formatCommandResult(result({ stdout: "hello\n", stderr: "warn\n" }))).toBe("hello\n[stderr]\nwarn\n[exit code 0 · 12 ms]");
  });

  it("never cuts a character in half", () => {
    const clipped = clipMiddle("😀".repeat(1_000), 301);
    expect(clipped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(clipped.length).toBeLessThanOrEqual(301);
  });
});

describe("HeadTailBuffer", () => {
  it("keeps the first and the last bytes and counts what it dropped", () => {
    const buffer = new HeadTailBuffer(10, 10);
    for (const chunk of ["0123456789", "abcdefghij", "klmnopqrst", "uvwxyz"]) buffer.push(Buffer.from(chunk));
    expect(buffer.dropped).toBe(16);
    expect(buffer.text()).toBe("0123456789\n[output truncated: 16 bytes cut here]\nqrstuvwxyz");
  });
});

describe("E2B command results", () => {
  it("fit under the agent's cut with the exit code, keeping the end of the output", async () => {
    const remote = {
      sandboxId: "sbx",
      commands: { run: async () => ({ exitCode: 2, stdout: `${"y".repeat(200_000)}\nlast line`, stderr: "" }) },
      files: { makeDir: async () => true },
      kill: async () => true,
    } as unknown as TRemoteSandbox;
    const e2b = new E2bSandbox({ template: "base", idleMs: 60_000, maxOutputBytes: 65_536, factory: async () => remote });
    const text = formatCommandResult(await e2b.run({ userId: "u", sessionId: "s", command: "yes", timeoutMs: 1_000 }));
    expect(text.length).toBeLessThanOrEqual(AGENT_CUT);
    expect(text).toMatch(/\nlast line\n\[exit code 2 · \d+ ms\]$/);
    await e2b.releaseSession("s");
  });
});

import { describe, expect, it, vi } from "vitest";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { resetEnvironment } from "@/lib/config/environment";
import { E2bSandbox, REMOTE_WORKDIR, type TRemoteSandbox, type TRemoteSandboxFactory } from "@/lib/sandbox/e2b-sandbox";
import { createSandboxRuntime } from "@/lib/sandbox/runtime";
import { installApp } from "@/lib/app/install-app";
import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";

// The app's capability list, as instrumentation.ts installs it.
installApp();

/**
 * E2B mode against a stand-in for the e2b SDK at exactly the boundary xclaw uses (TRemoteSandbox):
 * an in-memory filesystem and a tiny command runner. The real SDK is not reachable here.
 */
function fakeE2b() {
  const created: { template: string; sessionId: string; userId: string; killed: boolean; files: Map<string, string>; commands: string[] }[] = [];
  const factory: TRemoteSandboxFactory = async (options) => {
    const state = { ...options, killed: false, files: new Map<string, string>(), commands: [] as string[] };
    created.push(state);
    const sandbox: TRemoteSandbox = {
      sandboxId: `sbx-${created.length}`,
      commands: {
        async run(command, runOptions) {
          state.commands.push(command);
          expect(runOptions.cwd).toBe(REMOTE_WORKDIR);
          const write = /^echo (\S+) > (\S+)$/.exec(command);
          if (write) {
            state.files.set(`${REMOTE_WORKDIR}/${write[2]}`, `${write[1]}\n`);
            return { exitCode: 0, stdout: "", stderr: "" };
          }
          const cat = /^cat (\S+)$/.exec(command);
          if (cat) {
            const content = state.files.get(`${REMOTE_WORKDIR}/${cat[1]}`);
            return content === undefined ? { exitCode: 1, stdout: "", stderr: `cat: ${cat[1]}: No such file` } : { exitCode: 0, stdout: content, stderr: "" };
          }
          return { exitCode: 127, stdout: "", stderr: `${command}: not found` };
        },
      },
      files: {
        read: async (file) => new TextEncoder().encode(state.files.get(file) ?? ""),
        write: async (file, data) => void state.files.set(file, data),
        list: async (directory) =>
          [...state.files.keys()].filter((file) => file.startsWith(directory + "/")).map((file) => ({ name: file.slice(directory.length + 1), type: "file", size: state.files.get(file)!.length })),
        remove: async (file) => void state.files.delete(file),
        makeDir: async () => true,
        exists: async (file) => state.files.has(file),
      },
      async kill() {
        state.killed = true;
        return true;
      },
    };
    return sandbox;
  };
  return { factory, created };
}

const config = parseBehaviourConfig("sandbox:\n  mode: e2b\n");
const context = (sessionId: string) => ({ userId: "00000000-0000-4000-8000-000000000001", sessionId, signal: new AbortController().signal, stepId: "", progress: () => {} });

describe("E2B sandbox mode", () => {
  it("creates one sandbox per session lazily, and the shell and file tools share its filesystem", async () => {
    const { factory, created } = fakeE2b();
    const e2b = new E2bSandbox({ template: "base", idleMs: 60_000, maxOutputBytes: 10_000, factory });
    const runtime = createSandboxRuntime(config, { e2b });
    expect(runtime.mode).toBe("e2b");
    const tools = defaultToolRegistry(runtime, config);
    expect(created).toHaveLength(0);

    const shell = tools.get("shell")!;
    const written = await shell.execute({ command: "echo from-shell > made.md" }, context("session-a"));
    expect(written).toMatchObject({ isError: false });
    const viewed = await tools.get("view_file")!.execute({ path: "made.md" }, context("session-a"));
    expect(viewed).toContain("from-shell");

    await tools.get("write_file")!.execute({ path: "notes.md", content: "from the file tool" }, context("session-a"));
    const catted = await shell.execute({ command: "cat notes.md" }, context("session-a"));
    expect(JSON.stringify(catted)).toContain("from the file tool");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ template: "base", sessionId: "session-a" });

    await shell.execute({ command: "cat notes.md" }, context("session-b"));
    expect(created).toHaveLength(2);
    expect((await tools.get("view_file")!.execute({ path: "notes.md" }, context("session-b")) as { isError: boolean }).isError).toBe(true);
  });

  it("applies the same path and extension rules remotely", async () => {
    const { factory } = fakeE2b();
    const runtime = createSandboxRuntime(config, { e2b: new E2bSandbox({ template: "base", idleMs: 60_000, maxOutputBytes: 10_000, factory }) });
    const tools = defaultToolRegistry(runtime, config);
    const escape = await tools.get("write_file")!.execute({ path: "../../etc/cron.md", content: "x" }, context("s"));
    expect(escape).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/outside your workspace/) }] });
    const script = await tools.get("write_file")!.execute({ path: "run.sh", content: "x" }, context("s"));
    expect(script).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/Files of type \.sh cannot be written/) }] });
  });

  it("kills a session's sandbox when it idles or the session ends", async () => {
    const { factory, created } = fakeE2b();
    const e2b = new E2bSandbox({ template: "base", idleMs: 50, maxOutputBytes: 10_000, factory });
    await e2b.run({ userId: "u", sessionId: "idle", command: "cat x", timeoutMs: 1_000 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(created[0]!.killed).toBe(true);
    expect(e2b.activeSessions()).toEqual([]);
    await e2b.run({ userId: "u", sessionId: "ended", command: "cat x", timeoutMs: 1_000 });
    await e2b.releaseSession("ended");
    expect(created[1]!.killed).toBe(true);
  });

  it("never hands one user's session sandbox to another user", async () => {
    const { factory } = fakeE2b();
    const e2b = new E2bSandbox({ template: "base", idleMs: 60_000, maxOutputBytes: 10_000, factory });
    await e2b.run({ userId: "alice", sessionId: "shared-id", command: "cat x", timeoutMs: 1_000 });
    expect(() => e2b.sandboxFor("mallory", "shared-id")).toThrow(/No such session/);
  });

  it("falls back to no shell, with a reason, when e2b is chosen but not configured", () => {
    delete process.env.E2B_API_KEY;
    delete process.env.E2B_DOMAIN;
    delete process.env.E2B_API_URL;
    resetEnvironment();
    const runtime = createSandboxRuntime(config);
    expect(runtime.mode).toBe("none");
    expect(runtime.reason).toMatch(/E2B_API_KEY/);
    expect(defaultToolRegistry(runtime, config).get("shell")).toBeUndefined();
  });

  it("gives every module graph of the process the same E2B client, so a session finds its sandbox from either", async () => {
    // Next.js loads instrumentation (the chat's Node route, jobs) and route handlers (an approval
    // that resumes the run) as separate module graphs: each has its own copy of runtime.ts.
    process.env.E2B_API_KEY = "e2b-test-key";
    resetEnvironment();
    try {
      const first = createSandboxRuntime(config);
      vi.resetModules();
      const other = await import("@/lib/sandbox/runtime");
      const second = other.createSandboxRuntime(parseBehaviourConfig("sandbox:\n  mode: e2b\n"));
      expect(first.mode).toBe("e2b");
      expect(second.sandbox).toBe(first.sandbox);
      // A different setting is a different client.
      const shorter = other.createSandboxRuntime(parseBehaviourConfig("sandbox:\n  mode: e2b\n  e2b:\n    idleMinutes: 1\n"));
      expect(shorter.sandbox).not.toBe(first.sandbox);
    } finally {
      delete process.env.E2B_API_KEY;
      resetEnvironment();
    }
  });

  it("registers no shell tool in mode none", () => {
    const none = parseBehaviourConfig("sandbox:\n  mode: none\n");
    const runtime = createSandboxRuntime(none);
    expect(runtime).toMatchObject({ mode: "none", reason: expect.stringMatching(/turned the shell off/) });
    const names = defaultToolRegistry(runtime, none).names();
    expect(names).not.toContain("shell");
    expect(names).not.toContain("run_python");
    expect(names).toContain("write_file");
  });
});

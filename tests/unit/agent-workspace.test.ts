import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deliveryPath } from "@/lib/agents/deliveries";
import { BubblewrapSandbox, findBubblewrap } from "@/lib/sandbox/bubblewrap-sandbox";
import { detectCgroups } from "@/lib/sandbox/cgroups";
import { ScopedWorkspace, writableFolder } from "@/lib/sandbox/scoped-workspace";
import type { TWorkspaceLimits } from "@/lib/sandbox/workspace-files";

// Slow by nature (bubblewrap commands), and slower on a busy machine: room beyond vitest's 5 s default.
vi.setConfig({ testTimeout: 60_000 });

/**
 * A worker sees only its folders: agents/<agent>/<task>/ as its workspace and shared/<task>/
 * read-only inside it — in the file tools and in bubblewrap. Each test is an attempt to reach
 * anything else of the owner's workspace (or beyond) that must fail.
 */
const available = findBubblewrap() !== undefined || Boolean(process.env.CI);
const MiB = 1024 * 1024;
const limits: TWorkspaceLimits = { readExtensions: [".md", ".txt"], writeExtensions: [".md", ".txt"], maxReadBytes: MiB, maxWriteBytes: MiB, quotaBytes: 64 * MiB };
const owner = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : undefined;
const scope = { root: "agents/coder/k3x9a1", shared: "shared/k3x9a1" };
let base: string;
let alice: string;
let sandbox: BubblewrapSandbox;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "xclaw-agent-ws-"));
  alice = randomUUID();
  const root = path.join(base, alice);
  await mkdir(path.join(root, "shared", "k3x9a1"), { recursive: true });
  await mkdir(path.join(root, "shared", "other1"), { recursive: true });
  await writeFile(path.join(root, "private.md"), "the owner's own notes");
  await writeFile(path.join(root, "shared", "k3x9a1", "input.md"), "from an earlier step");
  await writeFile(path.join(root, "shared", "other1", "secret.md"), "another task's delivery");
  sandbox = new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 8_192, memoryMegabytes: 256, cpuSeconds: 10, maxProcesses: 64, tmpMegabytes: 16, quotaBytes: 64 * MiB, cgroups: detectCgroups() });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("a worker's file tools", () => {
  const files = () => new ScopedWorkspace(path.join(base, alice), scope, limits, owner);

  it("work in the scratch folder and read the task's deliveries at shared/<task>/", async () => {
    await files().writeText("notes.md", "draft");
    expect(await readFile(path.join(base, alice, scope.root, "notes.md"), "utf8")).toBe("draft");
    expect((await files().readText("/workspace/notes.md")).text).toBe("draft");
    expect(await files().readText("shared/k3x9a1/input.md")).toMatchObject({ relative: "shared/k3x9a1/input.md", text: "from an earlier step" });
    expect((await files().list("shared/k3x9a1")).entries.map((entry) => entry.name)).toEqual(["input.md"]);
  });

  it("refuse everything else: the owner's files, other tasks, writes into the deliveries", async () => {
    await expect(files().readText("../../../private.md")).rejects.toThrow(/outside your workspace/);
    await expect(files().readText(path.join(base, alice, "private.md"))).rejects.toThrow(/outside your workspace/);
    await expect(files().readText("shared/other1/secret.md")).rejects.toThrow(/No such/);
    await expect(files().writeText("shared/k3x9a1/input.md", "overwritten")).rejects.toThrow(/read-only/);
    await expect(files().writeText("../../../escape.md", "x")).rejects.toThrow(/outside your workspace/);
    expect(await readFile(path.join(base, alice, "shared", "k3x9a1", "input.md"), "utf8")).toBe("from an earlier step");
  });

  it("refuse a scratch folder that the owner's agent replaced with a link elsewhere", async () => {
    const bob = randomUUID();
    await mkdir(path.join(base, bob, "agents"), { recursive: true });
    await writeFile(path.join(base, alice, "private.md"), "the owner's own notes");
    // The owner's agent (which can write anywhere in the owner's workspace) plants a link.
    await mkdir(path.join(base, bob, "target"), { recursive: true });
    await writeFile(path.join(base, bob, "target", "loot.md"), "outside");
    await symlink(path.join(base, bob, "target"), path.join(base, bob, "agents", "coder"));
    const trapped = new ScopedWorkspace(path.join(base, bob), scope, limits, owner);
    await expect(trapped.list(".")).rejects.toThrow(/symlink/);
  });
});

describe("deliveries", () => {
  it("take paths inside the task's folder only", () => {
    expect(deliveryPath("report.md", "shared/k3x9a1")).toBe("report.md");
    expect(deliveryPath("docs/api.md", "shared/k3x9a1")).toBe("docs/api.md");
    expect(deliveryPath("shared/k3x9a1/report.md", "shared/k3x9a1")).toBe("report.md");
    expect(deliveryPath("/workspace/shared/k3x9a1/report.md", "shared/k3x9a1")).toBe("report.md");
    for (const bad of ["../report.md", "docs/../../report.md", "..", "/etc/passwd", "/workspace/notes.md", "shared/other1/report.md", "."]) {
      expect(() => deliveryPath(bad, "shared/k3x9a1"), bad).toThrow(/delivery folder|another task/);
    }
  });

  it("never write through a symlink in the delivery folder", async () => {
    await symlink(path.join(base, alice, "private.md"), path.join(base, alice, "shared", "k3x9a1", "link.md"));
    const folder = writableFolder(path.join(base, alice), "shared/k3x9a1", limits, owner);
    await expect(folder.writeText("link.md", "overwrite the owner's notes")).rejects.toThrow(/symlink/);
    expect(await readFile(path.join(base, alice, "private.md"), "utf8")).toBe("the owner's own notes");
    expect((await folder.writeText("ok.md", "fine")).relative).toBe("ok.md");
  });
});

describe.skipIf(!available)("a worker's sandbox", () => {
  const run = (command: string) => sandbox.run({ userId: alice, sessionId: "worker", scope, command, timeoutMs: 10_000 });

  it("mounts only the scratch folder at /workspace and the task's deliveries read-only inside it", async () => {
    const result = await run("pwd; ls -A /workspace; cat shared/k3x9a1/input.md; echo made > made.txt; echo no > shared/k3x9a1/new.txt; ls /workspace/shared");
    expect(result.stdout).toContain("/workspace\n");
    expect(result.stdout).toContain("from an earlier step");
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(result.stdout).not.toContain("private.md");
    expect(result.stdout).not.toContain("other1");
    expect(await readFile(path.join(base, alice, scope.root, "made.txt"), "utf8")).toBe("made\n");
  });

  // The search prints the contents of any private.md it reaches. It skips only what cannot hold
  // the workspace: the host's read-only /usr (walking it took seconds, past the test's timeout on a
  // busy machine) and the kernel's /proc, /sys and /dev.
  it("cannot climb out of it, and holds no descriptor of the folders it was given", async () => {
    const result = await run('cat /workspace/../private.md 2>&1; cat ../../private.md 2>&1; find / \\( -path /usr -o -path /proc -o -path /sys -o -path /dev \\) -prune -o -name private.md -exec cat {} + 2>/dev/null; for fd in /proc/$$/fd/*; do [ -d "$fd" ] && echo "DIRECTORY $fd"; done; echo end');
    expect(result.stdout).not.toContain("the owner's own notes");
    // The folders were handed to bubblewrap as descriptors: none of them reached the command.
    expect(result.stdout).not.toContain("DIRECTORY");
    expect(result.stdout).toContain("end");
  });

  it("refuses to run when a folder on the way is a link", async () => {
    const carol = randomUUID();
    await mkdir(path.join(base, carol, "agents"), { recursive: true });
    await symlink("/etc", path.join(base, carol, "agents", "coder"));
    await expect(sandbox.run({ userId: carol, sessionId: "worker", scope, command: "ls", timeoutMs: 5_000 })).rejects.toThrow(/symlink/);
  });
});

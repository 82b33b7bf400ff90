import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, stat, writeFile, mkdir } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BubblewrapSandbox, findBubblewrap } from "@/lib/sandbox/bubblewrap-sandbox";
import { detectCgroups } from "@/lib/sandbox/cgroups";
import { formatCommandResult } from "@/lib/sandbox/types";
import { Workspace } from "@/lib/sandbox/workspace-files";
import { surveyWorkspace } from "@/lib/sandbox/workspace-usage";

// Slow by nature (bubblewrap commands, some of them exhausting a limit), and slower on a busy machine: room beyond vitest's 5 s default.
vi.setConfig({ testTimeout: 60_000 });

/**
 * The real bubblewrap sandbox, run as the tests' user (as root here, so commands run as nobody).
 * Each test is an escape or exhaustion attempt that must fail; a loopback server stands in for the
 * database and the app. Resource attacks are bounded by the tests themselves (600 processes at
 * most, a few hundred MiB), so a missing limit fails the test instead of hurting the machine.
 */
// Skipped only on a developer machine without bwrap; CI installs it, so there the tests must run.
const available = findBubblewrap() !== undefined || Boolean(process.env.CI);
let base: string;
let sandbox: BubblewrapSandbox;
let server: net.Server;
let port: number;
let hostFile: string;
const alice = randomUUID();
const bob = randomUUID();
const MiB = 1024 * 1024;
const cgroups = detectCgroups();
const runningAsRoot = process.getuid?.() === 0;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "xclaw-sandbox-"));
  await mkdir(path.join(base, bob), { recursive: true });
  await writeFile(path.join(base, bob, "diary.md"), "bob's secret");
  hostFile = path.join(base, "host-file.txt");
  await writeFile(hostFile, "host data");
  sandbox = new BubblewrapSandbox({
    workspaceRoot: (userId) => path.join(base, userId),
    maxOutputBytes: 4_096,
    memoryMegabytes: 256,
    cpuSeconds: 10,
    maxProcesses: 64,
    tmpMegabytes: 32,
    quotaBytes: 64 * MiB,
    cgroups,
  });
  server = net.createServer((socket) => socket.end("hello from the host\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  server?.close();
  await rm(base, { recursive: true, force: true });
});

const run = (command: string, timeoutMs = 10_000) => sandbox.run({ userId: alice, sessionId: "s", command, timeoutMs });

describe.skipIf(!available)("bubblewrap sandbox", () => {
  it("runs a command in the user's workspace and keeps its files there", async () => {
    const result = await run("echo made-in-sandbox > out.txt && cat out.txt && pwd");
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout).toBe("made-in-sandbox\n/workspace\n");
    expect(await readFile(path.join(base, alice, "out.txt"), "utf8")).toBe("made-in-sandbox\n");
  });

  it("cannot reach a server on the host's loopback (the database, the app) or any network", async () => {
    const host = await fetch(`http://127.0.0.1:${port}`).then(() => "reachable", () => "reachable (non-http)");
    expect(host).toMatch(/reachable/);
    const script = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2).recv(100)\n    print("CONNECTED")\nexcept OSError as error:\n    print("BLOCKED", error)\n`;
    const result = await sandbox.run({ userId: alice, sessionId: "s", command: "python3 -", stdin: script, timeoutMs: 10_000 });
    expect(result.stdout).toMatch(/^BLOCKED/);
    const external = await sandbox.run({
      userId: alice,
      sessionId: "s",
      command: "python3 -",
      stdin: 'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 53), timeout=2)\n    print("CONNECTED")\nexcept OSError as error:\n    print("BLOCKED", error)\n',
      timeoutMs: 10_000,
    });
    expect(external.stdout).toMatch(/^BLOCKED/);
  });

  it("cannot write outside the workspace: the system is read-only and host paths do not exist", async () => {
    const result = await run(`touch /usr/escape 2>&1; echo x > ${hostFile} 2>&1; echo x > /escape 2>&1; ls ${base} 2>&1; echo done`);
    expect(result.stdout).toMatch(/Read-only file system/);
    expect(result.stdout).toContain("done");
    expect(await readFile(hostFile, "utf8")).toBe("host data");
    expect(await readdir(base)).not.toContain("escape");
    const tmp = await run("echo scratch > /tmp/x && cat /tmp/x");
    expect(tmp.stdout).toBe("scratch\n");
  });

  it("cannot see another user's workspace, the host's /etc or the app's environment", async () => {
    const result = await run(`ls /workspace/.. ; cat ../${bob}/diary.md 2>&1; cat /etc/passwd 2>&1; cat /etc/shadow 2>&1; env`);
    expect(result.stdout).not.toContain("bob's secret");
    expect(result.stdout).toMatch(/\/etc\/passwd: No such file or directory/);
    expect(result.stdout).not.toMatch(/DATABASE_URL|NEXTAUTH|OPENAI|ANTHROPIC/);
    const processes = await run("ls /proc | grep -c '^[0-9]'");
    expect(Number(processes.stdout.trim())).toBeLessThan(5);
  });

  it("does not start a command whose run was stopped while the sandbox was being set up", async () => {
    const stopped = new AbortController();
    stopped.abort();
    await sandbox.run({ userId: alice, sessionId: "s", command: "echo started > aborted.txt", timeoutMs: 10_000, signal: stopped.signal });
    await expect(stat(path.join(base, alice, "aborted.txt"))).rejects.toThrow();
  });

  it("kills the whole process group at the timeout", async () => {
    const started = Date.now();
    const result = await run(`(sleep 30; echo late > late.txt) & sleep 30`, 500);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = await run("ls late.txt 2>&1");
    expect(left.stdout).toMatch(/No such file/);
  });

  it("caps output, keeping its start and end, and says so", async () => {
    const result = await run("echo FIRST; head -c 100000 /dev/zero | tr '\\0' 'a'; echo; echo LAST");
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThan(5_000);
    expect(result.stdout).toMatch(/^FIRST\n/);
    expect(result.stdout).toMatch(/\n\[output truncated: \d+ bytes cut here\]\n/);
    expect(result.stdout).toMatch(/\nLAST\n$/);
  });

  it("keeps a command's result under the agent's 50,000-character cut, status lines included", async () => {
    // The default output cap (64 KiB) is more than the agent keeps of an observation.
    const defaults = new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 65_536, memoryMegabytes: 256, cpuSeconds: 10, cgroups });
    const command = "head -c 200000 /dev/zero | tr '\\0' a; echo; echo THE-END; head -c 100000 /dev/zero | tr '\\0' e >&2; exit 3";
    const result = await defaults.run({ userId: alice, sessionId: "s", command, timeoutMs: 10_000 });
    const text = formatCommandResult(result);
    expect(text.length).toBeLessThanOrEqual(50_000);
    expect(text).toContain("THE-END");
    expect(text).toMatch(/\[exit code 3 · \d+ ms\]$/);
    const killed = formatCommandResult(await defaults.run({ userId: alice, sessionId: "s", command: "head -c 200000 /dev/zero | tr '\\0' a; sleep 30", timeoutMs: 500 }));
    expect(killed.length).toBeLessThanOrEqual(50_000);
    expect(killed).toMatch(/\[killed: the command ran longer than the time limit\]\n\[exit code none · \d+ ms\]$/);
  });

  it("limits memory", async () => {
    // Touched memory (bytes * n writes every page), so a cgroup, which counts what is used, sees it.
    const result = await sandbox.run({ userId: alice, sessionId: "s", command: "python3 -", stdin: "x = b'x' * (600 * 1024 * 1024)\nprint('allocated')", timeoutMs: 10_000 });
    expect(result.stdout).not.toContain("allocated");
    if (cgroups.manager) expect(result.notes?.join("\n")).toMatch(/killed: out of memory/);
    else expect(result.stderr).toMatch(/MemoryError/);
  });

  it.skipIf(!cgroups.manager)("limits the memory of the whole command, not of each process", { timeout: 60_000 }, async () => {
    // Three processes of 100 MiB each fit a 256 MiB per-process limit, but not 256 MiB in all.
    // Each waits (a few seconds at most) until all three hold their memory, so they overlap.
    const program = [
      "import os, sys, time",
      "block = b'x' * (100 * 1024 * 1024)",
      "open(f'/tmp/ready-{sys.argv[1]}', 'w').close()",
      "for _ in range(100):",
      "    if len([n for n in os.listdir('/tmp') if n.startswith('ready-')]) == 3: break",
      "    time.sleep(0.05)",
      "print('done', sys.argv[1], flush=True)",
    ].join("\n");
    const command = `cat > /tmp/hold.py <<'EOF'\n${program}\nEOF\nfor i in 1 2 3; do python3 /tmp/hold.py $i & done; wait`;
    const result = await run(command, 30_000);
    const done = result.stdout.match(/^done \d$/gm) ?? [];
    expect(done.length).toBeLessThan(3);
    expect(result.notes?.join("\n")).toMatch(/killed: out of memory; the command may use 256 MiB in all/);
  });

  it("stops a fork bomb at the process limit", { timeout: 60_000 }, async () => {
    // At most 600 processes, however the limit behaves; each sleeps and is killed at the end.
    const program = [
      "import os, signal, time",
      "children, error = [], None",
      "for _ in range(600):",
      "    try:",
      "        pid = os.fork()",
      "    except OSError as failure:",
      "        error = failure.strerror",
      "        break",
      "    if pid == 0:",
      "        time.sleep(30)",
      "        os._exit(0)",
      "    children.append(pid)",
      "print('started', len(children), error, flush=True)",
      "for pid in children: os.kill(pid, signal.SIGKILL)",
    ].join("\n");
    const result = await sandbox.run({ userId: alice, sessionId: "s", command: "python3 -", stdin: program, timeoutMs: 30_000 });
    const [, started, error] = /started (\d+) (.*)/.exec(result.stdout) ?? [];
    expect(Number(started)).toBeLessThan(64);
    expect(error).toMatch(/Resource temporarily unavailable/);
    if (cgroups.manager) expect(result.notes?.join("\n")).toMatch(/process limit reached: the command may have 64 processes at once/);
  });

  it("gives /tmp a size", async () => {
    const result = await run("head -c 48M /dev/zero > /tmp/fill; echo status $?; df -k /tmp | tail -1");
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.stdout).toMatch(/status 1/);
    expect(result.stdout).toMatch(/^tmpfs\s+32768\s/m);
  });

  it("runs commands as an unprivileged user and leaves no setuid or setgid file behind", async () => {
    const result = await run("id -u; cp /bin/sh suid-sh && chmod u+s,g+s suid-sh && mkdir -p sgid-dir && chmod g+s sgid-dir && ls -ln suid-sh; grep ' /workspace ' /proc/self/mountinfo");
    expect(result.exitCode).toBe(0);
    const uid = Number(result.stdout.split("\n")[0]);
    expect(uid).toBe(runningAsRoot ? 65_534 : process.getuid!());
    // Inside, the bits were set (so the test is real); the workspace is nosuid, nodev in any case.
    expect(result.stdout).toMatch(/^-rwsr-s/m);
    expect(result.stdout).toMatch(/ \/workspace rw,nosuid,nodev/);
    const file = await stat(path.join(base, alice, "suid-sh"));
    expect(file.mode & 0o6000).toBe(0);
    expect(file.uid).not.toBe(0);
    expect((await stat(path.join(base, alice, "sgid-dir"))).mode & 0o6000).toBe(0);
  });

  it.skipIf(!runningAsRoot)("shares the workspace between the file tools (the app, root) and commands (nobody)", async () => {
    const carol = randomUUID();
    const files = new Workspace(path.join(base, carol), { readExtensions: [".md"], writeExtensions: [".md"], maxReadBytes: 10_000, maxWriteBytes: 10_000 }, { owner: { uid: 65_534, gid: 65_534 } });
    await files.writeText("notes/todo.md", "from the file tool\n");
    const result = await sandbox.run({ userId: carol, sessionId: "s", command: "echo from the shell >> notes/todo.md && echo new > notes/new.md && cat notes/todo.md", timeoutMs: 10_000 });
    expect(result.stdout).toBe("from the file tool\nfrom the shell\n");
    expect((await files.readText("notes/new.md")).text).toBe("new\n");
  });
});

describe.skipIf(!available)("bubblewrap sandbox: workspace quota", () => {
  const quotaSandbox = (quotaBytes: number) =>
    new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 4_096, memoryMegabytes: 256, cpuSeconds: 30, quotaBytes, cgroups });
  const usageOf = async (userId: string) => (await surveyWorkspace(path.join(base, userId), { repair: false })).bytes;

  it("keeps a command from filling the workspace past the quota, and lets it delete to make room", { timeout: 60_000 }, async () => {
    const quota = quotaSandbox(8 * MiB);
    const dave = randomUUID();
    const quotaRun = (command: string) => quota.run({ userId: dave, sessionId: "s", command, timeoutMs: 20_000 });
    // One file cannot grow past the room left.
    const big = await quotaRun("head -c 20M /dev/zero > big; stat -c %s big");
    expect(Number(big.stdout.trim())).toBeLessThanOrEqual(8 * MiB);
    expect(big.stderr).toMatch(/File too large/);
    await quotaRun("rm big");
    // Several files each under the room cannot add up to more: what passed the quota is cut back.
    const parts = await quotaRun("for i in 1 2 3; do head -c 3M /dev/zero > part$i; done");
    expect(parts.notes?.join("\n")).toMatch(/\[quota reached: the workspace went over its quota of 8\.0 MiB.*cut off: part3 \(3\.0 → [0-9.]+ MiB\)/);
    expect(await usageOf(dave)).toBeLessThanOrEqual(8 * MiB);
    expect((await stat(path.join(base, dave, "part1"))).size).toBe(3 * MiB);
    expect((await stat(path.join(base, dave, "part2"))).size).toBe(3 * MiB);
    // Deleting makes room again.
    const freed = await quotaRun("rm part1 part2 && ls");
    expect(freed.stdout).toBe("part3\n");
    expect(freed.notes?.join("\n") ?? "").not.toMatch(/quota reached/);
    expect((await quotaRun("echo fits > small.txt && cat small.txt")).stdout).toBe("fits\n");
  });

  it("holds across everything one command writes: 4 files of 24 MiB with a 64 MiB quota", { timeout: 120_000 }, async () => {
    const quota = quotaSandbox(64 * MiB);
    const erin = randomUUID();
    await mkdir(path.join(base, erin), { recursive: true });
    await writeFile(path.join(base, erin, "kept.txt"), "x".repeat(MiB));
    const result = await quota.run({ userId: erin, sessionId: "s", command: "for i in 1 2 3 4; do head -c 24M /dev/zero > big$i; done; echo finished", timeoutMs: 60_000 });
    expect(await usageOf(erin)).toBeLessThanOrEqual(64 * MiB);
    expect(result.notes?.join("\n")).toMatch(/\[quota reached: the workspace went over its quota of 64 MiB/);
    expect(await readFile(path.join(base, erin, "kept.txt"), "utf8")).toBe("x".repeat(MiB));
    const next = await quota.run({ userId: erin, sessionId: "s", command: "echo still here", timeoutMs: 20_000 });
    expect(next.stdout).toBe("still here\n");
    expect(await usageOf(erin)).toBeLessThanOrEqual(64 * MiB);
  });

  it("holds across two commands running at once: 40 MiB each with a 64 MiB quota", { timeout: 120_000 }, async () => {
    const quota = quotaSandbox(64 * MiB);
    const frank = randomUUID();
    await mkdir(path.join(base, frank), { recursive: true });
    await writeFile(path.join(base, frank, "kept.txt"), "kept");
    const write = (name: string) => quota.run({ userId: frank, sessionId: name, command: `for i in 1 2 3 4; do head -c 10M /dev/zero >> ${name}; sleep 0.2; done`, timeoutMs: 60_000 });
    const [first, second] = await Promise.all([write("one"), write("two")]);
    expect(await usageOf(frank)).toBeLessThanOrEqual(64 * MiB);
    expect([...(first.notes ?? []), ...(second.notes ?? [])].join("\n")).toMatch(/\[quota reached: the workspace went over its quota of 64 MiB/);
    expect(await readFile(path.join(base, frank, "kept.txt"), "utf8")).toBe("kept");
    expect((await quota.run({ userId: frank, sessionId: "s", command: "rm one two && echo room", timeoutMs: 20_000 })).stdout).toBe("room\n");
  });
});

describe.skipIf(!available)("bubblewrap sandbox: workspace quota at its real size", () => {
  it("keeps 1,024 MiB whether one command writes 4 × 300 MiB or two write 600 MiB each at once", { timeout: 240_000 }, async () => {
    const quota = new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 4_096, memoryMegabytes: 256, cpuSeconds: 120, quotaBytes: 1_024 * MiB, cgroups });
    const grace = randomUUID();
    const usage = async () => (await surveyWorkspace(path.join(base, grace), { repair: false })).bytes;
    const one = await quota.run({ userId: grace, sessionId: "s", command: "for i in 1 2 3 4; do head -c 300M /dev/zero > big$i; done", timeoutMs: 120_000 });
    expect(one.notes?.join("\n")).toMatch(/\[quota reached: the workspace went over its quota of 1024 MiB/);
    expect(await usage()).toBeLessThanOrEqual(1_024 * MiB);
    await quota.run({ userId: grace, sessionId: "s", command: "rm big1 big2 big3 big4", timeoutMs: 60_000 });
    const write = (name: string) => quota.run({ userId: grace, sessionId: name, command: `head -c 600M /dev/zero > ${name}`, timeoutMs: 120_000 });
    const both = await Promise.all([write("a"), write("b")]);
    expect(both.flatMap((result) => result.notes ?? []).join("\n")).toMatch(/\[quota reached/);
    expect(await usage()).toBeLessThanOrEqual(1_024 * MiB);
    expect((await quota.run({ userId: grace, sessionId: "s", command: "rm a b && echo done", timeoutMs: 60_000 })).stdout).toBe("done\n");
  });
});

describe.skipIf(!available)("bubblewrap sandbox without cgroups", () => {
  it("still stops a fork bomb (rlimit) and says which limits are weaker", { timeout: 60_000 }, async () => {
    const fallback = new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 4_096, memoryMegabytes: 256, cpuSeconds: 10, maxProcesses: 64, cgroups: { reason: "none in this test" } });
    expect(fallback.enforcement.cgroup).toBeNull();
    expect(fallback.enforcement.notEnforced.join("\n")).toMatch(/memory for the whole command: no usable cgroup \(none in this test\)/);
    const program = "import os, time\nn, error = 0, None\nfor _ in range(600):\n    try:\n        pid = os.fork()\n    except OSError as failure:\n        error = failure.strerror\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    n += 1\nprint('started', n, error, flush=True)\n";
    const result = await fallback.run({ userId: alice, sessionId: "s", command: "python3 -", stdin: program, timeoutMs: 30_000 });
    const [, started, error] = /started (\d+) (.*)/.exec(result.stdout) ?? [];
    expect(Number(started)).toBeLessThan(64);
    expect(error).toMatch(/Resource temporarily unavailable/);
  });
});

import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapSandbox, findBubblewrap } from "@/lib/sandbox/bubblewrap-sandbox";

/**
 * The real bubblewrap sandbox, run as the tests' user. Each test is an escape attempt that must
 * fail; a loopback server stands in for the database and the app.
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

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "xclaw-sandbox-"));
  await mkdir(path.join(base, bob), { recursive: true });
  await writeFile(path.join(base, bob, "diary.md"), "bob's secret");
  hostFile = path.join(base, "host-file.txt");
  await writeFile(hostFile, "host data");
  sandbox = new BubblewrapSandbox({ workspaceRoot: (userId) => path.join(base, userId), maxOutputBytes: 4_096, memoryMegabytes: 256, cpuSeconds: 10 });
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

  it("caps output and says so", async () => {
    const result = await run("head -c 100000 /dev/zero | tr '\\0' 'a'");
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThan(5_000);
    expect(result.stdout).toMatch(/\[output truncated: \d+ more bytes were not kept\]$/);
  });

  it("limits memory", async () => {
    const result = await sandbox.run({ userId: alice, sessionId: "s", command: "python3 -", stdin: "x = bytearray(600 * 1024 * 1024)\nprint('allocated')", timeoutMs: 10_000 });
    expect(result.stdout).not.toContain("allocated");
    expect(result.stderr).toMatch(/MemoryError/);
  });
});

/**
 * Start-to-exit time of a trivial command in the bubblewrap sandbox against the same command run
 * directly on the host, interleaved in one run. Prints p50/p95 of both and the ratio.
 *
 *   npx tsx bench/sandbox.ts [iterations]
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BubblewrapSandbox, findBubblewrap } from "../lib/sandbox/bubblewrap-sandbox";
import { percentile } from "./support";

const iterations = Number(process.argv[2] ?? 200);
if (!findBubblewrap()) {
  console.error("bench/sandbox needs bubblewrap: apt-get install bubblewrap");
  process.exit(1);
}
const base = await mkdtemp(path.join(os.tmpdir(), "xclaw-bench-sandbox-"));
const sandbox = new BubblewrapSandbox({ workspaceRoot: (user) => path.join(base, user), maxOutputBytes: 65_536, memoryMegabytes: 1_024, cpuSeconds: 60 });
const command = "echo hello";

function direct(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

async function sandboxed(): Promise<number> {
  const started = performance.now();
  const result = await sandbox.run({ userId: "bench", sessionId: "bench", command, timeoutMs: 10_000 });
  if (result.stdout !== "hello\n") throw new Error(`unexpected output: ${JSON.stringify(result)}`);
  return performance.now() - started;
}

for (let warm = 0; warm < 10; warm++) {
  await direct();
  await sandboxed();
}
const directTimes: number[] = [];
const sandboxTimes: number[] = [];
for (let index = 0; index < iterations; index++) {
  if (index % 2) {
    directTimes.push(await direct());
    sandboxTimes.push(await sandboxed());
  } else {
    sandboxTimes.push(await sandboxed());
    directTimes.push(await direct());
  }
}
await rm(base, { recursive: true, force: true });
const fmt = (value: number) => value.toFixed(2);
console.log(`sandbox: \`${command}\`, ${iterations} interleaved pairs`);
console.log(`  direct      p50 ${fmt(percentile(directTimes, 50))} ms  p95 ${fmt(percentile(directTimes, 95))} ms`);
console.log(`  bubblewrap  p50 ${fmt(percentile(sandboxTimes, 50))} ms  p95 ${fmt(percentile(sandboxTimes, 95))} ms`);
console.log(`  ratio       p50 ${fmt(percentile(sandboxTimes, 50) / percentile(directTimes, 50))}x  p95 ${fmt(percentile(sandboxTimes, 95) / percentile(directTimes, 95))}x`);

import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_WORKSPACE_DEPTH, surveyWorkspace } from "@/lib/sandbox/workspace-usage";

/**
 * The walk that measures a workspace and repairs it (setuid/setgid bits, owner) runs as the app,
 * possibly root, over a tree the sandbox controls. It must never change anything outside it.
 */
let base: string;
let root: string;
let outside: string;
const asRoot = process.getuid?.() === 0;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "xclaw-usage-test-")));
  root = path.join(base, "workspace");
  outside = path.join(base, "outside");
  await fs.mkdir(root);
  await fs.mkdir(outside);
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe("surveyWorkspace", () => {
  it("adds up allocated space: sparse files count for what they use, hard links once", async () => {
    await fs.writeFile(path.join(root, "data.bin"), Buffer.alloc(256 * 1024, 1));
    await fs.link(path.join(root, "data.bin"), path.join(root, "again.bin"));
    const sparse = await fs.open(path.join(root, "sparse.bin"), "w");
    await sparse.truncate(1024 * 1024 * 1024);
    await sparse.close();
    const usage = await surveyWorkspace(root, { repair: false });
    expect(usage.complete).toBe(true);
    expect(usage.bytes).toBeGreaterThanOrEqual(256 * 1024);
    expect(usage.bytes).toBeLessThan(2 * 256 * 1024);
  });

  it("removes setuid and setgid bits inside, and nothing outside through symlinks", async () => {
    const program = path.join(outside, "program");
    await fs.writeFile(program, "#!/bin/sh\n");
    await fs.chmod(program, 0o6755);
    await fs.mkdir(path.join(outside, "folder"));
    await fs.chmod(path.join(outside, "folder"), 0o2755);
    await fs.writeFile(path.join(root, "mine"), "x");
    await fs.chmod(path.join(root, "mine"), 0o6755);
    await fs.mkdir(path.join(root, "shared"));
    await fs.chmod(path.join(root, "shared"), 0o2775);
    await fs.symlink(program, path.join(root, "link-to-program"));
    await fs.symlink(path.join(outside, "folder"), path.join(root, "link-to-folder"));
    const outsideBefore = await Promise.all([fs.stat(program), fs.stat(path.join(outside, "folder"))]);

    const usage = await surveyWorkspace(root, { repair: true, owner: asRoot ? { uid: 65_534, gid: 65_534 } : undefined });

    expect(usage.cleared.sort()).toEqual(["mine", "shared"]);
    expect((await fs.stat(path.join(root, "mine"))).mode & 0o7777).toBe(0o755);
    expect((await fs.stat(path.join(root, "shared"))).mode & 0o7777).toBe(0o775);
    const outsideAfter = await Promise.all([fs.stat(program), fs.stat(path.join(outside, "folder"))]);
    expect(outsideAfter.map((stats) => [stats.mode, stats.uid, stats.gid])).toEqual(outsideBefore.map((stats) => [stats.mode, stats.uid, stats.gid]));
  });

  it.skipIf(!asRoot)("gives everything inside to the sandbox's user, and leaves symlinks' targets alone", async () => {
    await fs.writeFile(path.join(outside, "host.txt"), "host");
    await fs.mkdir(path.join(root, "a", "b"), { recursive: true });
    await fs.writeFile(path.join(root, "a", "b", "old.txt"), "made by an older version, as root");
    await fs.symlink(path.join(outside, "host.txt"), path.join(root, "a", "host-link"));
    await surveyWorkspace(root, { repair: true, owner: { uid: 65_534, gid: 65_534 } });
    for (const entry of ["", "a", "a/b", "a/b/old.txt"]) expect((await fs.stat(path.join(root, entry))).uid).toBe(65_534);
    expect((await fs.stat(path.join(outside, "host.txt"))).uid).toBe(0);
  });

  it("says when a tree is too deep to measure", async () => {
    let folder = root;
    for (let level = 0; level <= MAX_WORKSPACE_DEPTH; level++) {
      folder = path.join(folder, "d");
      await fs.mkdir(folder);
    }
    expect((await surveyWorkspace(root, { repair: false })).complete).toBe(false);
  });
});

import { execFileSync } from "node:child_process";
import { constants as FS } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppError, type TErrorCode } from "@/lib/errors";
import { Workspace } from "@/lib/sandbox/workspace-files";
import { WorkspacePathError } from "@/lib/sandbox/workspace-paths";
import { surveyWorkspace } from "@/lib/sandbox/workspace-usage";

/**
 * Adversarial tests for the file tools' workspace. The agent controls every path it passes and,
 * through the sandboxed shell, everything inside its workspace (symlinks, hard links, FIFOs,
 * renames at any moment). Every refusal is checked twice: the error says what is wrong, and a
 * snapshot of the sibling `outside/` folder (contents, times, inodes, link counts) is unchanged.
 */

// Lets a test run code right after the workspace has resolved a path and before it uses it, so a
// check-then-use race can be staged deterministically instead of hoping a scheduler produces it.
const hooks = vi.hoisted(() => ({ afterRealpath: undefined as ((requested: string) => Promise<void>) | undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const realpath = async (target: string) => {
    const resolved = await actual.realpath(target);
    if (hooks.afterRealpath) await hooks.afterRealpath(String(target));
    return resolved;
  };
  return { ...actual, realpath, default: { ...actual, realpath } };
});

const SECRET = "TOP SECRET";
const LIMITS = {
  readExtensions: [".md", ".txt", ".json", ".py", ".sh"],
  writeExtensions: [".md", ".txt", ".json", ".py"],
  maxReadBytes: 1000,
  maxWriteBytes: 1000,
};

type TEntryState = { type: string; size: string; mtime: string; ctime: string; inode: string; links: string; atime?: string; content?: string; target?: string };

let base: string;
let root: string;
let outside: string;
let secret: string;
let outsideFolder: string;
let workspace: Workspace;
let outsideBefore: Record<string, TEntryState>;

/** Reads a file without updating its access time, so the snapshot itself never looks like a leak. */
async function readQuietly(file: string): Promise<string> {
  const handle = await fs.open(file, FS.O_RDONLY | FS.O_NOATIME);
  try {
    return (await handle.readFile()).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function snapshotTree(directory: string): Promise<Record<string, TEntryState>> {
  const result: Record<string, TEntryState> = {};
  async function walk(relative: string) {
    const full = path.join(directory, relative);
    const stats = await fs.lstat(full, { bigint: true });
    const type = stats.isSymbolicLink() ? "symlink" : stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
    const entry: TEntryState = {
      type,
      size: String(stats.size),
      mtime: String(stats.mtimeNs),
      ctime: String(stats.ctimeNs),
      inode: String(stats.ino),
      links: String(stats.nlink),
    };
    if (type === "file") {
      // Directory access times are left out: listing them here would change them.
      entry.atime = String(stats.atimeNs);
      entry.content = await readQuietly(full);
    }
    if (type === "symlink") entry.target = await fs.readlink(full);
    result[relative || "."] = entry;
    if (type === "directory") for (const name of (await fs.readdir(full)).sort()) await walk(path.join(relative, name));
  }
  await walk("");
  return result;
}

/** Call after arranging a test that itself changes outside/ (e.g. a hard link raises the link count). */
async function rememberOutside() {
  outsideBefore = await snapshotTree(outside);
}

async function expectOutsideUntouched() {
  expect(await snapshotTree(outside)).toEqual(outsideBefore);
  expect(await readQuietly(secret)).toBe(SECRET);
  expect((await fs.readdir(outside)).sort()).toEqual(["dir", "secret.md"]);
  expect(await fs.readdir(outsideFolder)).toEqual([]);
}

async function settle<T>(action: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return action.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Expects an AppError with `code` whose message matches `message` and never carries the secret. */
async function expectRefused(action: Promise<unknown>, code: TErrorCode, message: RegExp): Promise<AppError> {
  const outcome = await settle(action);
  if (outcome.ok) throw new Error(`expected a refusal (${code}), but it succeeded with ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(AppError);
  const error = outcome.error as AppError;
  expect({ code: error.code, message: error.message }).toEqual({ code, message: expect.stringMatching(message) });
  expect(error.message).not.toContain(SECRET);
  if (code === "bad_request") expect(error).toBeInstanceOf(WorkspacePathError);
  return error;
}

function inWorkspace(...parts: string[]) {
  return path.join(root, ...parts);
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "xclaw-workspace-test-")));
  root = path.join(base, "workspace");
  outside = path.join(base, "outside");
  secret = path.join(outside, "secret.md");
  outsideFolder = path.join(outside, "dir");
  await fs.mkdir(root);
  await fs.mkdir(outsideFolder, { recursive: true });
  await fs.writeFile(secret, SECRET);
  // An access time older than the modification time makes the kernel (relatime) record the next
  // read, so a read of the secret through the workspace shows up in the snapshot.
  await fs.utimes(secret, new Date("2001-01-01T00:00:00Z"), new Date("2002-01-01T00:00:00Z"));
  workspace = new Workspace(root, LIMITS);
  await rememberOutside();
});

afterEach(async () => {
  hooks.afterRealpath = undefined;
  await fs.rm(base, { recursive: true, force: true });
});

describe("the outside/ snapshot used by every confinement assertion", () => {
  it("notices a read of the secret, a write to it, and a file created in outside/dir", async () => {
    await fs.readFile(secret);
    await expect(expectOutsideUntouched()).rejects.toThrow();

    await rememberOutside();
    await fs.writeFile(secret, SECRET);
    await expect(expectOutsideUntouched()).rejects.toThrow();

    await fs.utimes(secret, new Date("2001-01-01T00:00:00Z"), new Date("2002-01-01T00:00:00Z"));
    await rememberOutside();
    await fs.writeFile(path.join(outsideFolder, "new.md"), "x");
    await fs.unlink(path.join(outsideFolder, "new.md"));
    // Created and removed again: the folder's modification time still tells.
    await expect(expectOutsideUntouched()).rejects.toThrow();
  });
});

describe("Workspace: .. traversal and absolute paths", () => {
  it.each(["../outside/secret.md", "a/../../outside/secret.md", "a/b/../../../outside/secret.md", " ../outside/secret.md", "./../outside/secret.md"])(
    "refuses to read %j",
    async (requested) => {
      await expectRefused(workspace.readText(requested), "bad_request", /is outside your workspace/);
      // readTextIfExists must not turn a refusal into "there is no such file".
      await expectRefused(workspace.readTextIfExists(requested), "bad_request", /is outside your workspace/);
      await expectOutsideUntouched();
    },
  );

  it("refuses to write, overwrite or delete through ..", async () => {
    await expectRefused(workspace.writeText("./../outside/x.md", "pwned"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.writeText("../outside/secret.md", "pwned"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.writeText("../outside/dir/new.md", "pwned"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.deleteFile("../outside/secret.md"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.list(".."), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.list("../outside/dir"), "bad_request", /is outside your workspace/);
    expect(await fs.readdir(root)).toEqual([]);
    await expectOutsideUntouched();
  });

  it("accepts .. that stays inside the workspace", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "inside");
    const read = await workspace.readText("a/b/../../notes.md");
    expect(read).toEqual({ relative: "notes.md", text: "inside", bytes: 6 });
  });

  it("refuses absolute paths outside the workspace", async () => {
    for (const requested of ["/etc/passwd", "//etc/passwd", secret, `${root}/../outside/secret.md`, "/proc/self/root/etc/passwd"]) {
      const error = await expectRefused(workspace.readText(requested), "bad_request", /is outside your workspace/);
      expect(error.message).toContain("relative to the workspace");
    }
    await expectRefused(workspace.writeText(secret, "pwned"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.writeText(path.join(outsideFolder, "new.md"), "pwned"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.deleteFile(secret), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.list(outsideFolder), "bad_request", /is outside your workspace/);
    await expectOutsideUntouched();
  });

  it("refuses a sibling folder whose name merely starts with the workspace's name", async () => {
    const sibling = `${root}-evil`;
    await fs.mkdir(sibling);
    await fs.writeFile(path.join(sibling, "secret.md"), SECRET);
    await expectRefused(workspace.readText(path.join(sibling, "secret.md")), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.readText("../workspace-evil/secret.md"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.writeText(path.join(sibling, "new.md"), "pwned"), "bad_request", /is outside your workspace/);
    expect((await fs.readdir(sibling)).sort()).toEqual(["secret.md"]);
    await expectOutsideUntouched();
  });

  // Absolute paths are compared with the root's real path only, so a path spelled with the
  // configured root is refused when that root is reached through a symlink (e.g. /var ->
  // /private/var on macOS, or a data folder symlinked to another disk).
  it("accepts an absolute path spelled with the configured root when the root is reached through a symlink", async () => {
    await fs.symlink(root, path.join(base, "workspace-link"));
    const linked = new Workspace(path.join(base, "workspace-link"), LIMITS);
    const written = await linked.writeText(path.join(base, "workspace-link", "abs.md"), "x");
    expect(written.relative).toBe("abs.md");
    expect(await fs.readFile(inWorkspace("abs.md"), "utf8")).toBe("x");
  });

  it("accepts an absolute path inside the workspace", async () => {
    const written = await workspace.writeText(inWorkspace("notes", "abs.md"), "absolute");
    expect(written).toEqual({ relative: path.join("notes", "abs.md"), bytes: 8, created: true });
    expect(await fs.readFile(inWorkspace("notes", "abs.md"), "utf8")).toBe("absolute");
    expect((await workspace.readText(inWorkspace("notes", "abs.md"))).text).toBe("absolute");
    expect((await workspace.list(root)).relative).toBe(".");
    await expectOutsideUntouched();
  });
});

describe("Workspace: symlinks", () => {
  it("refuses to read, write or delete through a symlink to a file outside", async () => {
    await fs.symlink(secret, inWorkspace("link.md"));
    await fs.symlink("../outside/secret.md", inWorkspace("relative-link.md"));
    for (const name of ["link.md", "relative-link.md"]) {
      await expectRefused(workspace.readText(name), "bad_request", /symlink/);
      await expectRefused(workspace.readTextIfExists(name), "bad_request", /symlink/);
      await expectRefused(workspace.writeText(name, "pwned"), "bad_request", /symlink/);
      await expectRefused(workspace.deleteFile(name), "bad_request", /symlink/);
    }
    expect(await fs.readlink(inWorkspace("link.md"))).toBe(secret);
    await expectOutsideUntouched();
  });

  it("refuses to read, write or list through a symlink to a folder outside", async () => {
    await fs.symlink(outside, inWorkspace("out"));
    await fs.symlink(outsideFolder, inWorkspace("link"));
    await expectRefused(workspace.readText("out/secret.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.readTextIfExists("out/secret.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.writeText("out/secret.md", "pwned"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.deleteFile("out/secret.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.writeText("link/new.md", "pwned"), "bad_request", /outside your workspace through a symlink/);
    // Missing folders below the symlink must not be created in outside/dir either.
    await expectRefused(workspace.writeText("link/deeper/new.md", "pwned"), "bad_request", /outside your workspace through a symlink/);
    // Must not answer not_found either: that would tell whether outside/dir/deeper exists.
    await expectRefused(workspace.readText("link/deeper/x.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.readTextIfExists("link/deeper/x.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.list("link"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.list("out"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.list(inWorkspace("out", "dir")), "bad_request", /outside your workspace through a symlink/);
    await expectOutsideUntouched();
  });

  // Through a symlink to outside/, a path that continues below an outside FILE makes realpath()
  // fail with ENOTDIR, which escapes raw, while an outside folder or a missing path gives the usual
  // refusal. The difference tells the agent which outside paths are files (with a symlink to "/":
  // any path on the server), and the raw message shows the server's absolute workspace path.
  it("gives the same refusal whether an outside path probed through a symlink is a file, a folder or missing", async () => {
    await fs.symlink(outside, inWorkspace("probe"));
    for (const probed of ["dir", "nothing", "secret.md"]) {
      const requested = `probe/${probed}/deeper/x.md`;
      const read = await expectRefused(workspace.readText(requested), "bad_request", /outside your workspace through a symlink/);
      expect(read.message).not.toContain(base);
      const written = await expectRefused(workspace.writeText(requested, "x"), "bad_request", /outside your workspace through a symlink/);
      expect(written.message).not.toContain(base);
    }
    await expectOutsideUntouched();
  });

  it("refuses a chain of relative symlinks that ends outside", async () => {
    await fs.symlink("b.md", inWorkspace("a.md"));
    await fs.symlink("c.md", inWorkspace("b.md"));
    await fs.symlink("../outside/secret.md", inWorkspace("c.md"));
    await fs.mkdir(inWorkspace("nested"));
    await fs.symlink("../hop", inWorkspace("nested", "start"));
    await fs.symlink("../outside", inWorkspace("hop"));
    await expectRefused(workspace.readText("a.md"), "bad_request", /symlink/);
    await expectRefused(workspace.writeText("a.md", "pwned"), "bad_request", /symlink/);
    await expectRefused(workspace.readText("nested/start/secret.md"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.writeText("nested/start/dir/new.md", "pwned"), "bad_request", /outside your workspace through a symlink/);
    await expectRefused(workspace.list("nested/start"), "bad_request", /outside your workspace through a symlink/);
    await expectOutsideUntouched();
  });

  it("refuses a symlink loop in the file name", async () => {
    await fs.symlink("loop.md", inWorkspace("loop.md"));
    await fs.symlink("pong.md", inWorkspace("ping.md"));
    await fs.symlink("ping.md", inWorkspace("pong.md"));
    await expectRefused(workspace.readText("loop.md"), "bad_request", /symlink/);
    await expectRefused(workspace.writeText("loop.md", "x"), "bad_request", /symlink/);
    await expectRefused(workspace.readText("ping.md"), "bad_request", /symlink/);
    await expectRefused(workspace.writeText("pong.md", "x"), "bad_request", /symlink/);
    expect(await fs.readlink(inWorkspace("loop.md"))).toBe("loop.md");
    await expectOutsideUntouched();
  });

  // A symlink loop used as a folder makes realpath() fail with ELOOP, which escapes as a raw Node
  // error (code "ELOOP", message with the server's absolute path) instead of a WorkspacePathError.
  it("refuses a symlink loop used as a folder with a clear error", async () => {
    await fs.symlink("loop", inWorkspace("loop"));
    await expectRefused(workspace.readText("loop/x.md"), "bad_request", /symlink/);
    await expectRefused(workspace.writeText("loop/x.md", "x"), "bad_request", /symlink/);
    await expectRefused(workspace.list("loop"), "bad_request", /symlink/);
    await expectOutsideUntouched();
  });

  it("does not follow a symlink to a file inside the workspace either, and lists it as a symlink", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "inside");
    await fs.symlink("notes.md", inWorkspace("alias.md"));
    await expectRefused(workspace.readText("alias.md"), "bad_request", /symlink/);
    await expectRefused(workspace.writeText("alias.md", "changed"), "bad_request", /symlink/);
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("inside");
    expect((await workspace.list(".")).entries).toContainEqual({ name: "alias.md", type: "symlink", size: 0 });
  });
});

describe("Workspace: a folder swapped for a symlink between check and use", () => {
  async function swapForSymlink(name: string, target: string) {
    await fs.rename(inWorkspace(name), inWorkspace(`${name}-parked`));
    await fs.symlink(target, inWorkspace(name));
  }

  // The first resolution belongs to the attempt that opens an existing file; the second to the
  // attempt that creates it, the one that would leave a new file in outside/dir.
  it.each([1, 2])("refuses a write when the folder becomes a symlink right after resolution %i", async (swapAt) => {
    await fs.mkdir(inWorkspace("sub"));
    await workspace.list(); // resolves and caches the root before the hook is armed
    let resolutions = 0;
    hooks.afterRealpath = async (requested) => {
      if (requested !== inWorkspace("sub")) return;
      resolutions += 1;
      if (resolutions === swapAt) await swapForSymlink("sub", outsideFolder);
    };
    await expectRefused(workspace.writeText("sub/target.md", "pwned"), "bad_request", /outside your workspace through a symlink/);
    expect(resolutions).toBe(swapAt);
    expect((await fs.lstat(inWorkspace("sub"))).isSymbolicLink()).toBe(true);
    expect(await fs.readdir(inWorkspace("sub-parked"))).toEqual([]);
    await expectOutsideUntouched();
  });

  it("refuses a read when the folder becomes a symlink right after it was resolved", async () => {
    await fs.mkdir(inWorkspace("sub"));
    await fs.writeFile(inWorkspace("sub", "secret.md"), "decoy");
    await workspace.list();
    let swaps = 0;
    hooks.afterRealpath = async (requested) => {
      if (requested !== inWorkspace("sub") || swaps > 0) return;
      swaps += 1;
      await swapForSymlink("sub", outside);
    };
    await expectRefused(workspace.readText("sub/secret.md"), "bad_request", /outside your workspace through a symlink/);
    expect(swaps).toBe(1);
    await expectOutsideUntouched();
  });

  it("refuses a list when the folder becomes a symlink right after it was resolved", async () => {
    await fs.mkdir(inWorkspace("sub"));
    await workspace.list();
    let swaps = 0;
    hooks.afterRealpath = async (requested) => {
      if (requested !== inWorkspace("sub") || swaps > 0) return;
      swaps += 1;
      await swapForSymlink("sub", outside);
    };
    await expectRefused(workspace.list("sub"), "bad_request", /outside your workspace through a symlink/);
    expect(swaps).toBe(1);
    await expectOutsideUntouched();
  });

  it("refuses a delete when the folder becomes a symlink between the file check and the unlink", async () => {
    await fs.mkdir(inWorkspace("sub"));
    await fs.writeFile(inWorkspace("sub", "secret.md"), "decoy");
    await workspace.list();
    let resolutions = 0;
    hooks.afterRealpath = async (requested) => {
      if (requested !== inWorkspace("sub")) return;
      resolutions += 1;
      // The first resolution is the file check; swap just before the folder is opened for unlink.
      if (resolutions === 2) await swapForSymlink("sub", outside);
    };
    await expectRefused(workspace.deleteFile("sub/secret.md"), "bad_request", /outside your workspace through a symlink/);
    expect(resolutions).toBe(2);
    expect(await fs.readFile(inWorkspace("sub-parked", "secret.md"), "utf8")).toBe("decoy");
    await expectOutsideUntouched();
  });

  it("does not create a missing folder through a symlink planted while it is being created", async () => {
    await workspace.list();
    let plants = 0;
    hooks.afterRealpath = async (requested) => {
      // "fresh" is missing, so the workspace resolves the root next and then creates "fresh" itself.
      if (requested !== root || plants > 0) return;
      plants += 1;
      await fs.symlink(outsideFolder, inWorkspace("fresh"));
    };
    await expectRefused(workspace.writeText("fresh/new.md", "pwned"), "bad_request", /symlink/);
    expect(plants).toBe(1);
    await expectOutsideUntouched();
  });

  /** Keeps replacing workspace/sub between a real folder and a symlink to `target` until stopped. */
  async function keepSwapping(target: string, progress: { swaps: number }, stopped: () => boolean) {
    const sub = inWorkspace("sub");
    const parked = inWorkspace("parked");
    let junk = 0;
    // The workspace may create "sub" itself while it is missing; such folders are moved aside.
    const clear = async () => {
      const stats = await fs.lstat(sub).catch(() => undefined);
      if (stats?.isSymbolicLink()) await fs.unlink(sub);
      else if (stats) await fs.rename(sub, inWorkspace(`junk-${junk++}`));
    };
    while (!stopped()) {
      await fs.rename(sub, parked);
      await fs.symlink(target, sub).catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      for (;;) {
        await clear();
        const restored = await fs.rename(parked, sub).then(
          () => true,
          () => false,
        );
        if (restored) break;
      }
      progress.swaps += 1;
      // Stay a real folder a little longer: refusals are fast, so readers would otherwise almost
      // never catch the real-folder state.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  it("never writes outside while workspace/sub keeps flipping between a folder and a symlink to outside/dir", { timeout: 60_000 }, async () => {
    await fs.mkdir(inWorkspace("sub"));
    await fs.writeFile(inWorkspace("sub", "target.md"), "start");
    await workspace.list();
    // Ends when both sides of the race were exercised enough, however slow the machine; the
    // deadline only bounds a run where one side never happens (the assertions below then fail).
    const deadline = Date.now() + 30_000;
    const outcomes = { written: 0, refused: 0, other: 0 };
    const progress = { swaps: 0 };
    const stopped = () => Date.now() > deadline || (progress.swaps >= 300 && outcomes.written > 20 && outcomes.refused > 20);
    const swapper = keepSwapping(outsideFolder, progress, stopped);
    const writers = Array.from({ length: 6 }, async (_, writer) => {
      for (let attempt = 0; !stopped(); attempt++) {
        const outcome = await settle(workspace.writeText("sub/target.md", `writer ${writer} attempt ${attempt}`));
        if (outcome.ok) outcomes.written += 1;
        else if (outcome.error instanceof WorkspacePathError) outcomes.refused += 1;
        else outcomes.other += 1;
      }
    });
    await Promise.all([swapper, ...writers]);
    expect(await fs.readdir(outsideFolder)).toEqual([]);
    await expectOutsideUntouched();
    // Both sides of the race were really exercised.
    expect(outcomes.written).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(progress.swaps).toBeGreaterThan(50);
  });

  it("never reads the secret while workspace/sub keeps flipping between a folder and a symlink to outside/", { timeout: 60_000 }, async () => {
    await fs.mkdir(inWorkspace("sub"));
    await fs.writeFile(inWorkspace("sub", "secret.md"), "decoy");
    await workspace.list();
    // Ends when both sides of the race were exercised enough, however slow the machine; the
    // deadline only bounds a run where one side never happens (the assertions below then fail).
    const deadline = Date.now() + 30_000;
    const outcomes = { decoy: 0, refused: 0, other: 0 };
    const texts = new Set<string>();
    const progress = { swaps: 0 };
    const stopped = () => Date.now() > deadline || (progress.swaps >= 300 && outcomes.decoy > 20 && outcomes.refused > 20);
    const swapper = keepSwapping(outside, progress, stopped);
    const readers = Array.from({ length: 6 }, async () => {
      while (!stopped()) {
        const outcome = await settle(workspace.readText("sub/secret.md"));
        if (outcome.ok) {
          texts.add(outcome.value.text);
          if (outcome.value.text === "decoy") outcomes.decoy += 1;
        } else if (outcome.error instanceof WorkspacePathError) outcomes.refused += 1;
        else outcomes.other += 1;
      }
    });
    await Promise.all([swapper, ...readers]);
    expect([...texts]).toEqual(["decoy"]);
    await expectOutsideUntouched();
    expect(outcomes.decoy).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(progress.swaps).toBeGreaterThan(50);
  });
});

describe("Workspace: odd timing that is not an attack", () => {
  // Both writers see "missing", both open with O_CREAT | O_EXCL, and the loser gets a raw EEXIST
  // (with the server's absolute path in its message) instead of a write or an AppError.
  it("copes with another writer creating the same file at the same moment", async () => {
    await workspace.list();
    let resolutions = 0;
    hooks.afterRealpath = async (requested) => {
      if (requested !== root) return;
      resolutions += 1;
      // The first resolution finds no file; before the second one creates it, another writer does.
      if (resolutions === 2) await fs.writeFile(inWorkspace("same.md"), "other writer");
    };
    const outcome = await settle(workspace.writeText("same.md", "mine"));
    expect(resolutions).toBeGreaterThanOrEqual(2);
    if (outcome.ok) expect(await fs.readFile(inWorkspace("same.md"), "utf8")).toBe("mine");
    else {
      expect(outcome.error).toBeInstanceOf(AppError);
      expect((outcome.error as AppError).message).not.toContain(base);
    }
  });

  // realpath() succeeded, then the folder was renamed away before open(): the raw ENOENT escapes.
  it("reports a folder that disappears right after it was resolved as not_found", async () => {
    await fs.mkdir(inWorkspace("sub"));
    await fs.writeFile(inWorkspace("sub", "notes.md"), "x");
    await workspace.list();
    hooks.afterRealpath = async (requested) => {
      if (requested === inWorkspace("sub") && (await exists(inWorkspace("sub")))) await fs.rename(inWorkspace("sub"), inWorkspace("moved"));
    };
    await expectRefused(workspace.readText("sub/notes.md"), "not_found", /sub/);
  });
});

describe("Workspace: hard links", () => {
  it("refuses to read, write or delete a hard link to a file outside", async () => {
    await fs.link(secret, inWorkspace("hard.md"));
    await rememberOutside();
    await expectRefused(workspace.readText("hard.md"), "bad_request", /hard link/);
    await expectRefused(workspace.readTextIfExists("hard.md"), "bad_request", /hard link/);
    await expectRefused(workspace.writeText("hard.md", "pwned"), "bad_request", /hard link/);
    await expectRefused(workspace.writeText("hard.md", ""), "bad_request", /hard link/);
    await settle(workspace.deleteFile("hard.md"));
    await expectOutsideUntouched();
  });
});

describe("Workspace: /proc paths", () => {
  it("refuses absolute /proc/self paths", async () => {
    for (const requested of [`/proc/self/root${secret}`, `/proc/self/cwd/../../..${secret}`, "/proc/self/root/etc/passwd", "/proc/self/fd/0"]) {
      await expectRefused(workspace.readText(requested), "bad_request", /is outside your workspace/);
    }
    await expectRefused(workspace.writeText(`/proc/self/root${outsideFolder}/new.md`, "pwned"), "bad_request", /is outside your workspace/);
    await expectOutsideUntouched();
  });

  it("treats a relative proc/self/root/... as a missing folder inside the workspace", async () => {
    const passwordFileBefore = await fs.stat("/etc/passwd");
    const error = await expectRefused(workspace.readText("proc/self/root/etc/passwd"), "bad_request", /no extension/);
    expect(error.message).not.toMatch(/root:/);
    await expectRefused(workspace.readText(`proc/self/root${secret}`), "not_found", /No such file/);
    expect(await workspace.readTextIfExists(`proc/self/root${secret}`)).toBeUndefined();
    expect(await workspace.readTextIfExists("proc/self/root/etc/hostname.txt")).toBeUndefined();
    const written = await workspace.writeText("proc/self/root/etc/passwd.md", "confined");
    expect(written.relative).toBe(path.join("proc", "self", "root", "etc", "passwd.md"));
    expect(await fs.readFile(inWorkspace("proc", "self", "root", "etc", "passwd.md"), "utf8")).toBe("confined");
    expect(await exists("/etc/passwd.md")).toBe(false);
    expect((await fs.stat("/etc/passwd")).mtimeMs).toBe(passwordFileBefore.mtimeMs);
    await expectOutsideUntouched();
  });
});

describe("Workspace: encoded, unicode and odd names", () => {
  it.each([
    { requested: "%2e%2e/outside/secret.md", literal: ["%2e%2e", "outside", "secret.md"] },
    { requested: "..%2foutside%2fsecret.md", literal: ["..%2foutside%2fsecret.md"] },
    { requested: "%2e%2e%2foutside%2fsecret.md", literal: ["%2e%2e%2foutside%2fsecret.md"] },
    { requested: "．．/outside/secret.md", literal: ["．．", "outside", "secret.md"] },
    { requested: "\u2025/outside/secret.md", literal: ["\u2025", "outside", "secret.md"] },
    { requested: "..\\outside\\secret.md", literal: ["..\\outside\\secret.md"] },
    { requested: "\u202e../outside/secret.md", literal: ["\u202e..", "outside", "secret.md"] },
    { requested: "..\u200b/outside/secret.md", literal: ["..\u200b", "outside", "secret.md"] },
    { requested: "file:///outside/secret.md", literal: ["file:", "outside", "secret.md"] },
    { requested: "~/../outside/secret.md", literal: ["outside", "secret.md"] },
  ])("confines $requested to a literal name inside the workspace", async ({ requested, literal }) => {
    await expectRefused(workspace.readText(requested), "not_found", /No such file/);
    expect(await workspace.readTextIfExists(requested)).toBeUndefined();
    const written = await workspace.writeText(requested, "confined");
    expect(written).toEqual({ relative: path.join(...literal), bytes: 8, created: true });
    expect(await fs.readFile(inWorkspace(...literal), "utf8")).toBe("confined");
    expect((await workspace.readText(requested)).text).toBe("confined");
    await expectOutsideUntouched();
  });

  it("refuses a path with a NUL byte", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "inside");
    for (const requested of ["notes.md\0.txt", "../outside/secret.md\0.md", "\0"]) {
      await expectRefused(workspace.readText(requested), "bad_request", /NUL byte/);
      await expectRefused(workspace.writeText(requested, "pwned"), "bad_request", /NUL byte/);
      await expectRefused(workspace.deleteFile(requested), "bad_request", /NUL byte/);
      await expectRefused(workspace.list(requested), "bad_request", /NUL byte/);
    }
    expect(await fs.readdir(root)).toEqual(["notes.md"]);
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("inside");
    await expectOutsideUntouched();
  });

  it("judges the extension by the real name, not by how a right-to-left override displays it", async () => {
    // Displays as "reporths.md" but ends in ".sh".
    const disguised = "report\u202edm.sh";
    await expectRefused(workspace.writeText(disguised, "echo pwned"), "bad_request", /\.sh cannot be written/);
    expect(await fs.readdir(root)).toEqual([]);
    // Displays as "notesdm.sh" but ends in ".md": allowed, and written under its literal name.
    const written = await workspace.writeText("notes\u202ehs.md", "text");
    expect(written.relative).toBe("notes\u202ehs.md");
    expect(await fs.readdir(root)).toEqual(["notes\u202ehs.md"]);
    await expectOutsideUntouched();
  });

  it("refuses an overlong path", async () => {
    await expectRefused(workspace.writeText(`${"a/".repeat(600)}x.md`, "x"), "bad_request", /longer than 1024/);
    expect(await fs.readdir(root)).toEqual([]);
  });

  // A 300-byte name passes the 1024-character check but the kernel answers ENAMETOOLONG, which
  // escapes as a raw Node error carrying the server's absolute path.
  it("refuses a file name longer than the file system allows with a clear error", async () => {
    await expectRefused(workspace.writeText(`${"n".repeat(300)}.md`, "x"), "bad_request", /long/);
  });
});

describe("Workspace: extensions", () => {
  it.each([
    { requested: "run.sh", shown: ".sh" },
    { requested: "Makefile", shown: "(no extension)" },
    { requested: "a.md.sh", shown: ".sh" },
    { requested: "A.SH", shown: ".sh" },
    { requested: ".md", shown: "(no extension)" },
    { requested: "x.sh.", shown: "." },
    { requested: "x.sh ", shown: ".sh" },
    { requested: "dir.md/run.sh", shown: ".sh" },
  ])("refuses to write $requested", async ({ requested, shown }) => {
    const error = await expectRefused(workspace.writeText(requested, "echo pwned"), "bad_request", /cannot be written by this tool/);
    expect(error.message).toContain(`Files of type ${shown} cannot`);
    expect(error.message).toContain("Allowed: .md, .txt, .json, .py.");
    expect(await fs.readdir(root)).toEqual([]);
  });

  it("compares extensions case-insensitively and keeps the name's case", async () => {
    const written = await workspace.writeText("notes.MD", "upper");
    expect(written).toEqual({ relative: "notes.MD", bytes: 5, created: true });
    expect(await fs.readdir(root)).toEqual(["notes.MD"]);
    expect((await workspace.readText("notes.MD")).text).toBe("upper");
  });

  it("reads allowed extensions only", async () => {
    await fs.writeFile(inWorkspace("run.sh"), "echo hi");
    await fs.writeFile(inWorkspace("key.pem"), "-----BEGIN KEY-----");
    await fs.writeFile(inWorkspace(".env"), "TOKEN=x");
    expect((await workspace.readText("run.sh")).text).toBe("echo hi");
    await expectRefused(workspace.readText("key.pem"), "bad_request", /Files of type \.pem cannot be read/);
    await expectRefused(workspace.readText(".env"), "bad_request", /Files of type \(no extension\) cannot be read/);
  });
});

describe("Workspace: size limits", () => {
  it("refuses to read a file over the limit and names both sizes", async () => {
    await fs.writeFile(inWorkspace("big.md"), "x".repeat(5000));
    await expectRefused(workspace.readText("big.md"), "payload_too_large", /"big\.md" is 5000 bytes; the limit for reading is 1000 bytes/);
    await fs.writeFile(inWorkspace("edge.md"), "x".repeat(1001));
    await expectRefused(workspace.readText("edge.md"), "payload_too_large", /1001 bytes/);
    await fs.writeFile(inWorkspace("fits.md"), "x".repeat(1000));
    expect((await workspace.readText("fits.md")).bytes).toBe(1000);
  });

  it("refuses to write content over the limit, counting bytes rather than characters, and creates nothing", async () => {
    await expectRefused(workspace.writeText("big.md", "x".repeat(5000)), "payload_too_large", /content is 5000 bytes; the limit for writing is 1000 bytes/);
    // 400 characters, 1200 bytes.
    await expectRefused(workspace.writeText("wide.md", "汉".repeat(400)), "payload_too_large", /1200 bytes/);
    await expectRefused(workspace.writeText("deep/folder/big.md", "x".repeat(1001)), "payload_too_large", /1001 bytes/);
    expect(await fs.readdir(root)).toEqual([]);
    expect(await workspace.writeText("fits.md", "x".repeat(1000))).toEqual({ relative: "fits.md", bytes: 1000, created: true });
  });

  it("keeps an existing file intact when an overwrite is too large", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "original");
    await expectRefused(workspace.writeText("notes.md", "y".repeat(5000)), "payload_too_large", /5000 bytes/);
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("original");
  });
});

describe("Workspace: quota", () => {
  const quotaLimits = { ...LIMITS, maxWriteBytes: 100_000, quotaBytes: 64 * 1024 };

  it("refuses a write that would take the workspace past its quota, and creates nothing", async () => {
    const limited = new Workspace(root, quotaLimits);
    await limited.writeText("a.md", "a".repeat(40_000));
    await expectRefused(limited.writeText("b.md", "b".repeat(40_000)), "payload_too_large", /workspace is over its quota: writing "b\.md" would make it \d+\.\d MiB of 0\.1 MiB\. Delete files first/);
    expect(await exists(inWorkspace("b.md"))).toBe(false);
    // Replacing a file frees what it used.
    expect((await limited.writeText("a.md", "c".repeat(40_000))).bytes).toBe(40_000);
  });

  it("lets only one of two writes at once use the room left", async () => {
    // Two workspaces over the same folder, as two chats of one user have.
    const [first, second] = await Promise.allSettled([
      new Workspace(root, quotaLimits).writeText("a.md", "a".repeat(40_000)),
      new Workspace(root, quotaLimits).writeText("b.md", "b".repeat(40_000)),
    ]);
    expect([first.status, second.status].sort()).toEqual(["fulfilled", "rejected"]);
    const refused = [first, second].find((result) => result.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "payload_too_large", message: expect.stringMatching(/workspace is over its quota/) });
    expect((await surveyWorkspace(root, { repair: false })).bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it("counts what commands left in the workspace, in any folder", async () => {
    await fs.mkdir(inWorkspace("build", "cache"), { recursive: true });
    await fs.writeFile(inWorkspace("build", "cache", "blob.bin"), Buffer.alloc(70_000, 1));
    await expectRefused(new Workspace(root, quotaLimits).writeText("tiny.md", "x"), "payload_too_large", /over its quota/);
  });

  it.skipIf(process.getuid?.() !== 0)("gives what it creates to the sandbox's user when the app runs as root", async () => {
    const owned = new Workspace(path.join(base, "owned"), LIMITS, { owner: { uid: 65_534, gid: 65_534 } });
    await owned.writeText("d/e/f.md", "shared");
    for (const entry of ["", "d", "d/e", "d/e/f.md"]) {
      const stats = await fs.stat(path.join(base, "owned", entry));
      expect({ entry, uid: stats.uid, gid: stats.gid }).toEqual({ entry, uid: 65_534, gid: 65_534 });
    }
  });
});

describe("Workspace: binary files", () => {
  it("refuses a file with NUL bytes", async () => {
    await fs.writeFile(inWorkspace("nul.md"), Buffer.from([0x61, 0x62, 0x00, 0x63]));
    await expectRefused(workspace.readText("nul.md"), "bad_request", /"nul\.md" is a binary file/);
  });

  it("refuses a file with invalid UTF-8", async () => {
    await fs.writeFile(inWorkspace("latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expectRefused(workspace.readText("latin1.txt"), "bad_request", /binary file/);
    await fs.writeFile(inWorkspace("truncated.md"), Buffer.from("汉").subarray(0, 2));
    await expectRefused(workspace.readText("truncated.md"), "bad_request", /binary file/);
  });

  it("reads UTF-8 Chinese text", async () => {
    const text = "你好，世界\n工作区里的笔记。\n";
    await fs.writeFile(inWorkspace("chinese.md"), text);
    expect(await workspace.readText("chinese.md")).toEqual({ relative: "chinese.md", text, bytes: Buffer.byteLength(text) });
  });
});

describe("Workspace: folders where files are expected and the other way round", () => {
  it("refuses to read a folder", async () => {
    await fs.mkdir(inWorkspace("folder.md"));
    await expectRefused(workspace.readText("folder.md"), "bad_request", /"folder\.md" is not a regular file/);
  });

  it("refuses to write over a folder and leaves it a folder", async () => {
    await fs.mkdir(inWorkspace("folder.md"));
    await fs.writeFile(inWorkspace("folder.md", "child.md"), "kept");
    await expectRefused(workspace.writeText("folder.md", "x"), "bad_request", /"folder\.md" is a directory/);
    expect((await fs.stat(inWorkspace("folder.md"))).isDirectory()).toBe(true);
    expect(await fs.readFile(inWorkspace("folder.md", "child.md"), "utf8")).toBe("kept");
  });

  it("refuses to delete a folder", async () => {
    await fs.mkdir(inWorkspace("folder.md"));
    await expectRefused(workspace.deleteFile("folder.md"), "bad_request", /not a regular file/);
    expect((await fs.stat(inWorkspace("folder.md"))).isDirectory()).toBe(true);
  });

  it("refuses to list a file", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "x");
    await expectRefused(workspace.list("notes.md"), "bad_request", /"notes\.md" is a file, not a folder/);
  });

  it("asks for a file name when given the root", async () => {
    for (const requested of ["", ".", "./", "a/..", root]) {
      await expectRefused(workspace.readText(requested), "bad_request", /Give a file name|cannot be read/);
      await expectRefused(workspace.writeText(requested, "x"), "bad_request", /Give a file name|cannot be written/);
    }
    expect(await fs.readdir(root)).toEqual([]);
  });

  it("reports a missing file or folder as not_found", async () => {
    await expectRefused(workspace.readText("missing.md"), "not_found", /No such file: missing\.md/);
    await expectRefused(workspace.readText("missing/deeper.md"), "not_found", /No such file: missing\/deeper\.md/);
    await expectRefused(workspace.deleteFile("missing.md"), "not_found", /No such file/);
    // Reading must not create the missing folders.
    expect(await fs.readdir(root)).toEqual([]);
  });

  // list() resolves the deepest existing ancestor and then opens that ancestor instead of the
  // requested folder, so a missing folder lists the workspace root.
  it("reports a missing folder to list as not_found", async () => {
    await fs.writeFile(inWorkspace("root-file.md"), "x");
    await expectRefused(workspace.list("missing"), "not_found", /No such folder: missing/);
  });

  // realpath() of "notes.md/child.md" fails with ENOTDIR (and open() of a file with O_DIRECTORY
  // too); both escape as raw Node errors naming the server's absolute path.
  it("refuses a file used as a folder with a clear error", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "x");
    await expectRefused(workspace.writeText("notes.md/child.md", "x"), "bad_request", /notes\.md/);
    await expectRefused(workspace.writeText("notes.md/deeper/child.md", "x"), "bad_request", /notes\.md/);
    await expectRefused(workspace.readText("notes.md/child.md"), "bad_request", /notes\.md/);
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("x");
  });
});

describe("Workspace: FIFOs and other special files", () => {
  /**
   * Runs `action` on a FIFO and expects a prompt refusal. A blocking open() would park a libuv
   * thread for good, so when the action hangs the FIFO's other end is opened to release it.
   */
  async function expectPromptRefusalOnFifo(name: string, action: () => Promise<unknown>, releaseFlags: number) {
    const fifo = inWorkspace(name);
    execFileSync("mkfifo", [fifo]);
    const pending = settle(action());
    const timedOut = Symbol("timed out");
    const first = await Promise.race([pending, new Promise<typeof timedOut>((resolve) => setTimeout(() => resolve(timedOut), 500))]);
    if (first === timedOut) {
      const release = await fs.open(fifo, releaseFlags | FS.O_NONBLOCK);
      await release.close();
      await pending;
      throw new Error(`"${name}" is a FIFO: the workspace blocked in open() instead of refusing it`);
    }
    const error = await expectRefused(Promise.reject((first as { error: unknown }).error), "bad_request", /not a regular file/);
    expect(error.message).toContain(name);
  }

  it("refuses to read a FIFO instead of blocking forever", async () => {
    await expectPromptRefusalOnFifo("pipe.md", () => workspace.readText("pipe.md"), FS.O_WRONLY);
  });

  it("refuses to write a FIFO instead of blocking forever", async () => {
    await expectPromptRefusalOnFifo("pipe.md", () => workspace.writeText("pipe.md", "x"), FS.O_RDONLY);
  });

  it("refuses to delete a FIFO instead of blocking forever", async () => {
    await expectPromptRefusalOnFifo("pipe.md", () => workspace.deleteFile("pipe.md"), FS.O_WRONLY);
  });

  it("lists a FIFO without opening it", async () => {
    execFileSync("mkfifo", [inWorkspace("pipe.md")]);
    expect((await workspace.list(".")).entries).toEqual([{ name: "pipe.md", type: "other", size: 0 }]);
  });
});

describe("Workspace: everyday use", () => {
  it("creates nested folders on write and reads the file back", async () => {
    expect(await workspace.writeText("a/b/c.md", "hello")).toEqual({ relative: path.join("a", "b", "c.md"), bytes: 5, created: true });
    expect(await fs.readFile(inWorkspace("a", "b", "c.md"), "utf8")).toBe("hello");
    expect(await workspace.readText("a/b/c.md")).toEqual({ relative: path.join("a", "b", "c.md"), text: "hello", bytes: 5 });
    expect(await workspace.readTextIfExists("a/b/c.md")).toBe("hello");
    expect(await workspace.readTextIfExists("a/b/missing.md")).toBeUndefined();
    await expectOutsideUntouched();
  });

  it("overwrites an existing file completely", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "a much longer original text");
    const inode = (await fs.stat(inWorkspace("notes.md"))).ino;
    expect(await workspace.writeText("notes.md", "short")).toEqual({ relative: "notes.md", bytes: 5, created: false });
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("short");
    // Written in place, not replaced by a new file.
    expect((await fs.stat(inWorkspace("notes.md"))).ino).toBe(inode);
    expect(await workspace.writeText("notes.md", "")).toEqual({ relative: "notes.md", bytes: 0, created: false });
    expect(await fs.readFile(inWorkspace("notes.md"), "utf8")).toBe("");
  });

  it("lists entries with their types and sizes", async () => {
    await fs.writeFile(inWorkspace("notes.md"), "12345");
    await fs.mkdir(inWorkspace("folder"));
    await fs.writeFile(inWorkspace("folder", "inner.txt"), "abc");
    await fs.symlink(secret, inWorkspace("link.md"));
    expect(await workspace.list()).toEqual({
      relative: ".",
      entries: [
        { name: "folder", type: "directory", size: 0 },
        { name: "link.md", type: "symlink", size: 0 },
        { name: "notes.md", type: "file", size: 5 },
      ],
    });
    expect(await workspace.list("folder")).toEqual({ relative: "folder", entries: [{ name: "inner.txt", type: "file", size: 3 }] });
    await expectOutsideUntouched();
  });

  it("deletes a file inside and refuses files outside", async () => {
    await fs.mkdir(inWorkspace("a"));
    await fs.writeFile(inWorkspace("a", "gone.md"), "bye");
    expect(await workspace.deleteFile("a/gone.md")).toBe(path.join("a", "gone.md"));
    expect(await fs.readdir(inWorkspace("a"))).toEqual([]);
    await expectRefused(workspace.deleteFile("../outside/secret.md"), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.deleteFile(secret), "bad_request", /is outside your workspace/);
    await expectRefused(workspace.deleteFile("a/../../outside/secret.md"), "bad_request", /is outside your workspace/);
    await expectOutsideUntouched();
  });

  it("creates its root folder when it does not exist yet", async () => {
    const fresh = new Workspace(path.join(base, "new-root", "workspace"), LIMITS);
    expect(await fresh.list()).toEqual({ relative: ".", entries: [] });
    expect((await fs.stat(path.join(base, "new-root", "workspace"))).isDirectory()).toBe(true);
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { carryOutWorkspaceRequest, workspaceAccessFor } from "@/lib/plugins/plugin-workspace";
import { Workspace } from "@/lib/sandbox/workspace-files";

/** The app's side of a plugin's workspace request: the grant per call, then the file tools' own rules. */
let base: string;
let files: Workspace;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "xclaw-plugin-workspace-"));
  files = new Workspace(path.join(base, "alice"), { readExtensions: [".md", ".txt"], writeExtensions: [".md", ".txt"], maxReadBytes: 1_000_000, maxWriteBytes: 1_000_000 });
  await files.writeText("notes/a.md", "alpha");
  await files.writeText("big.txt", "x".repeat(300 * 1024));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("plugin workspace access", () => {
  it("grants read for read or write manifests, and write only to tools the approval policy checks", () => {
    expect(workspaceAccessFor("none", "write")).toBe("none");
    expect(workspaceAccessFor("read", "write")).toBe("read");
    expect(workspaceAccessFor("write", "read")).toBe("read");
    expect(workspaceAccessFor("write", "write")).toBe("write");
    expect(workspaceAccessFor("write", "external")).toBe("write");
  });

  it("carries out what the call was granted, by the workspace's rules, and refuses the rest", async () => {
    expect(await carryOutWorkspaceRequest(files, "read", { op: "read", path: "notes/a.md" })).toEqual({ ok: true, value: { path: "notes/a.md", text: "alpha" } });
    expect(await carryOutWorkspaceRequest(files, "read", { op: "list", path: "notes" })).toMatchObject({ ok: true, value: { path: "notes", entries: [{ name: "a.md", type: "file" }] } });
    expect(await carryOutWorkspaceRequest(files, "read", { op: "write", path: "notes/b.md", text: "no" })).toEqual({ ok: false, error: "This call may only read the workspace." });
    expect(await carryOutWorkspaceRequest(files, "none", { op: "read", path: "notes/a.md" })).toEqual({ ok: false, error: "This plugin has no access to the workspace." });
    expect(await files.readTextIfExists("notes/b.md")).toBeUndefined();

    const written = await carryOutWorkspaceRequest(files, "write", { op: "write", path: "notes/b.md", text: "yes" });
    expect(written).toEqual({ ok: true, value: { path: "notes/b.md", bytes: 3, created: true } });
    expect(await files.readTextIfExists("notes/b.md")).toBe("yes");

    const outside = await carryOutWorkspaceRequest(files, "write", { op: "read", path: "../bob/secret.md" });
    expect(outside).toMatchObject({ ok: false, error: expect.stringMatching(/outside your workspace/) });
    const absolute = await carryOutWorkspaceRequest(files, "write", { op: "read", path: "/etc/passwd" });
    expect(absolute).toMatchObject({ ok: false, error: expect.stringMatching(/outside your workspace/) });
    const big = await carryOutWorkspaceRequest(files, "read", { op: "read", path: "big.txt" });
    expect(big).toMatchObject({ ok: false, error: expect.stringMatching(/too large for a plugin to read \(more than 256 KB\)/) });
  });
});

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { applyPatch } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { resetEnvironment } from "@/lib/config/environment";
import { createSandboxRuntime, workspaceRoot } from "@/lib/sandbox/runtime";
import { installApp } from "@/lib/app/install-app";
import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";
import { unifiedDiff } from "@/lib/tools/line-diff";
import type { TToolResult } from "@/lib/tools/registry";

// The app's capability list, as instrumentation.ts installs it.
installApp();

const userId = "00000000-0000-4000-8000-0000000000aa";
const context = { userId, sessionId: "s", signal: new AbortController().signal, stepId: "", progress: () => {} };
let dataDirectory: string;

beforeAll(async () => {
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-file-tools-"));
  process.env.XCLAW_DATA_DIR = dataDirectory;
  resetEnvironment();
});
afterAll(async () => {
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
  await rm(dataDirectory, { recursive: true, force: true });
});

const config = parseBehaviourConfig("");
const tools = () => defaultToolRegistry(createSandboxRuntime(config), config);
const text = (result: string | TToolResult) => (typeof result === "string" ? result : result.content.map((part) => (part.type === "text" ? part.text : "")).join(""));
const run = async (name: string, input: unknown) => {
  const tool = tools().get(name)!;
  return tool.execute(tool.input.parse(input), context);
};

describe("file tools", () => {
  it("write, view with line numbers and paging, list", async () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join("\n");
    expect(text(await run("write_file", { path: "docs/a.md", content: lines }))).toBe("Created docs/a.md (70 bytes).");
    expect(await readFile(path.join(workspaceRoot(userId), "docs/a.md"), "utf8")).toBe(lines);
    const page = text(await run("view_file", { path: "docs/a.md", offset: 3, limit: 2 }));
    expect(page).toBe("docs/a.md (10 lines)\n    3  line 3\n    4  line 4\n[lines 3-4 of 10; call view_file with offset 5 to read on]");
    expect(text(await run("list_dir", { path: "docs" }))).toBe("docs/ (1 entries)\nfile  a.md  (70 bytes)");
  });

  it("edits exactly one match, and explains a missing or ambiguous one", async () => {
    await writeFile(path.join(workspaceRoot(userId), "e.md"), "alpha\nbeta\nalpha\n");
    const missing = await run("edit_file", { path: "e.md", old_string: "gamma", new_string: "x" });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toMatch(/^old_string was not found in e.md/);
    const ambiguous = await run("edit_file", { path: "e.md", old_string: "alpha", new_string: "x" });
    expect(text(ambiguous)).toBe("old_string occurs 2 times in e.md. Add surrounding lines to make it unique, or set replace_all to true.");
    expect(text(await run("edit_file", { path: "e.md", old_string: "beta", new_string: "BETA" }))).toBe("Edited e.md: replaced 1 occurrence.");
    expect(text(await run("edit_file", { path: "e.md", old_string: "alpha", new_string: "A", replace_all: true }))).toBe("Edited e.md: replaced 2 occurrences.");
    expect(await readFile(path.join(workspaceRoot(userId), "e.md"), "utf8")).toBe("A\nBETA\nA\n");
  });

  it("previews edits as a diff for the approval card", async () => {
    await writeFile(path.join(workspaceRoot(userId), "p.md"), "one\ntwo\nthree\n");
    const tool = tools().get("edit_file")!;
    const preview = await tool.preview!(tool.input.parse({ path: "p.md", old_string: "two", new_string: "2" }), context);
    expect(preview).toEqual({ title: "Edit p.md", path: "p.md", diff: "--- a/p.md\n+++ b/p.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n" });
  });

  it("keeps delete_file off unless xclaw.yaml enables it", async () => {
    expect(tools().get("delete_file")).toBeUndefined();
    const enabled = parseBehaviourConfig("tools:\n  deleteFile: true\n");
    expect(defaultToolRegistry(createSandboxRuntime(enabled), enabled).get("delete_file")?.risk).toBe("write");
  });

  it("returns refusals to the model as error observations", async () => {
    const result = await run("view_file", { path: "../../etc/passwd.md" });
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).toMatch(/outside your workspace/);
  });
});

describe("unified diff", () => {
  const numbered = (count: number, line = (index: number) => `line ${index + 1}`) => Array.from({ length: count }, (_, index) => line(index)).join("\n") + "\n";
  // The diff says exactly what changes: applied to the old text it gives the new one.
  const appliesTo = (before: string, after: string, diff: string) => expect(applyPatch(before, diff)).toBe(after);

  it("shows a new file as all additions, and says when the last line has no newline", () => {
    const diff = unifiedDiff("", "a\nb", { path: "n.md" });
    expect(diff).toBe("--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n");
    appliesTo("", "a\nb", diff);
  });

  it("says so when nothing changes", () => {
    expect(unifiedDiff("same\n", "same\n", { path: "s.md" })).toBe("--- a/s.md\n+++ b/s.md\n@@ no changes @@\n");
  });

  it("shows changes far apart as separate hunks with three lines of context", () => {
    const before = numbered(40);
    const after = before.replace("line 5\n", "line five\n").replace("line 30\n", "");
    const diff = unifiedDiff(before, after, { path: "far.md" });
    expect(diff).toBe(
      [
        "--- a/far.md",
        "+++ b/far.md",
        "@@ -2,7 +2,7 @@",
        ...[" line 2", " line 3", " line 4", "-line 5", "+line five", " line 6", " line 7", " line 8"],
        "@@ -27,7 +27,6 @@",
        ...[" line 27", " line 28", " line 29", "-line 30", " line 31", " line 32", " line 33"],
        "",
      ].join("\n"),
    );
    appliesTo(before, after, diff);
  });

  it("shows a change in the middle of a 20,000-line file as one small hunk", { timeout: 60_000 }, () => {
    const before = numbered(20_000);
    const after = before.replace("\nline 10000\n", "\nline ten thousand\nand one more\n");
    const diff = unifiedDiff(before, after, { path: "big.txt" });
    expect(diff).toBe(
      [
        "--- a/big.txt",
        "+++ b/big.txt",
        "@@ -9997,7 +9997,8 @@",
        ...[" line 9997", " line 9998", " line 9999", "-line 10000", "+line ten thousand", "+and one more", " line 10001", " line 10002", " line 10003"],
        "",
      ].join("\n"),
    );
    appliesTo(before, after, diff);
  });

  it("shows a 20,000-line file rewritten as a whole as the old lines removed and the new ones added", { timeout: 60_000 }, () => {
    const before = numbered(20_000);
    const after = numbered(20_000, (index) => `other ${index + 1}`).slice(0, -1);
    const diff = unifiedDiff(before, after, { path: "big.txt" });
    const lines = diff.split("\n");
    expect(lines.slice(0, 5)).toEqual(["--- a/big.txt", "+++ b/big.txt", "@@ -1,20000 +1,20000 @@", "-line 1", "-line 2"]);
    expect(lines.slice(20_002, 20_006)).toEqual(["-line 20000", "+other 1", "+other 2", "+other 3"]);
    expect(lines.slice(-3)).toEqual(["+other 20000", "\\ No newline at end of file", ""]);
    appliesTo(before, after, diff);
  });
});

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { resetEnvironment } from "@/lib/config/environment";
import { createSandboxRuntime, workspaceRoot } from "@/lib/sandbox/runtime";
import { defaultToolRegistry } from "@/lib/capabilities/capabilities";
import { unifiedDiff } from "@/lib/tools/line-diff";
import type { TToolResult } from "@/lib/tools/registry";

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
    expect(preview).toEqual({ title: "Edit p.md", path: "p.md", diff: "--- a/p.md\n+++ b/p.md\n@@ -1,4 +1,4 @@\n one\n-two\n+2\n three\n " });
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
  it("shows a new file as all additions", () => {
    expect(unifiedDiff("", "a\nb", { path: "n.md" })).toBe("--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+a\n+b");
  });
});

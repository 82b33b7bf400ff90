import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The structure rules ESLint cannot see (ARCHITECTURE.md, "Folder map"; CODE_STYLE.md): no file
 * circle anywhere in the product's code, type-only imports included (import/no-cycle skips those),
 * and no source file over 400 lines outside the places ARCHITECTURE.md names. Imports are read and
 * resolved with TypeScript's own parser and module resolution, as the compiler sees them.
 */
const root = path.resolve(import.meta.dirname, "../..");
const PRODUCT = /^(lib|app|components|workers|inngest|scripts)\/|^(instrumentation|proxy|next\.config)\.ts$/;
// ARCHITECTURE.md, "Browser worker", says why these may be longer: the in-page script is one
// function serialised into the page, and the session file is the worker's one state machine.
const LONG_FILES_ALLOWED = new Set(["workers/browser/in-page.ts", "workers/browser/browser-session.ts"]);
const MAX_LINES = 400;

function sourceFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.tsx", "*.mts"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((file) => file && PRODUCT.test(file) && !file.startsWith("lib/db/generated/"));
}

function importGraph(files: string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const options = config!.options;
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(root, file), "utf8"), true, true);
    const targets = info.importedFiles.flatMap(({ fileName }) => {
      const resolved = ts.resolveModuleName(fileName, path.join(root, file), options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) return [];
      const relative = path.relative(root, resolved.resolvedFileName);
      return known.has(relative) ? [relative] : [];
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    indexes.set(file, index);
    lowLinks.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!indexes.has(target)) {
        visit(target);
        lowLinks.set(file, Math.min(lowLinks.get(file)!, lowLinks.get(target)!));
      } else if (onStack.has(target)) {
        lowLinks.set(file, Math.min(lowLinks.get(file)!, indexes.get(target)!));
      }
    }
    if (lowLinks.get(file) === indexes.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!indexes.has(file)) visit(file);
  return found;
}

describe("the code's structure", () => {
  const files = sourceFiles();

  it("reads the product's files and their imports", () => {
    // Guards the two tests below against passing because nothing was read.
    expect(files.length).toBeGreaterThan(300);
    const graph = importGraph(files);
    expect(graph.get("lib/runs/start-run.ts")).toContain("lib/runs/claim-for-input.ts");
    expect(graph.get("lib/runs/run-settings.ts")).toContain("lib/runs/claim-for-input.ts");
  });

  it("has no file circle, type-only imports included", () => {
    expect(circles(importGraph(files))).toEqual([]);
  });

  it("finds a circle when there is one", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(circles(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it(`has no source file over ${MAX_LINES} lines outside the ones ARCHITECTURE.md explains`, () => {
    const long = files
      .filter((file) => !LONG_FILES_ALLOWED.has(file))
      .map((file) => ({ file, lines: readFileSync(path.join(root, file), "utf8").split("\n").length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

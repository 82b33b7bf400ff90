import { z } from "zod";
import type { TSandboxRuntime } from "@/lib/sandbox/runtime";
import { unifiedDiff } from "./line-diff";
import { defineTool, type TTool, type TToolContext } from "./registry";
import { withToolErrors } from "./tool-errors";

/**
 * File tools over the user's workspace. All path, symlink, extension and size rules live in the
 * workspace (lib/sandbox/workspace-files.ts); these tools only shape input and output. Refusals
 * come back to the model as error observations with the reason.
 */
const ZPath = z.string().min(1).max(1_024).describe("Path relative to your workspace, e.g. notes/todo.md");


export function createFileTools(runtime: TSandboxRuntime, options: { deleteFile: boolean }): TTool[] {
  const workspace = (context: TToolContext) => runtime.workspaceFor(context.userId, context.sessionId, context.workspace);

  const listDir = defineTool({
    name: "list_dir",
    description: "List the files and folders in a folder of your workspace (default: the workspace root).",
    input: z.object({ path: z.string().max(1_024).default(".").describe("Folder relative to the workspace") }),
    risk: "read",
    execute: ({ path }, context) =>
      withToolErrors(async () => {
        const { relative, entries } = await workspace(context).list(path);
        if (!entries.length) return `${relative}/ is empty.`;
        const lines = entries.map((entry) => `${entry.type === "directory" ? "dir " : entry.type === "symlink" ? "link" : "file"}  ${entry.name}${entry.type === "file" ? `  (${entry.size} bytes)` : ""}`);
        return `${relative}/ (${entries.length} entries)\n${lines.join("\n")}`;
      }),
  });

  const viewFile = defineTool({
    name: "view_file",
    description: "Read a text file from your workspace with line numbers. Large files are shown in parts: use offset (first line, 1-based) and limit (number of lines).",
    input: z.object({ path: ZPath, offset: z.int().min(1).optional(), limit: z.int().min(1).max(2_000).optional() }),
    risk: "read",
    execute: ({ path, offset, limit }, context) =>
      withToolErrors(async () => {
        const { relative, text } = await workspace(context).readText(path);
        const lines = text.split("\n");
        const first = offset ?? 1;
        const count = limit ?? 400;
        const shown = lines.slice(first - 1, first - 1 + count);
        const numbered = shown.map((line, index) => `${String(first + index).padStart(5)}  ${line}`).join("\n");
        const last = first + shown.length - 1;
        const more = last < lines.length ? `\n[lines ${first}-${last} of ${lines.length}; call view_file with offset ${last + 1} to read on]` : "";
        return `${relative} (${lines.length} lines)\n${numbered}${more}`;
      }),
  });

  const writeFile = defineTool({
    name: "write_file",
    description: "Create or overwrite a text file in your workspace. Folders are created as needed.",
    input: z.object({ path: ZPath, content: z.string() }),
    risk: "write",
    preview: async ({ path, content }, context) => {
      const before = await workspace(context).readTextIfExists(path).catch(() => undefined);
      return { title: before === undefined ? `Create ${path}` : `Overwrite ${path}`, path, diff: unifiedDiff(before ?? "", content, { path }) };
    },
    execute: ({ path, content }, context) =>
      withToolErrors(async () => {
        const { relative, bytes, created } = await workspace(context).writeText(path, content);
        return `${created ? "Created" : "Overwrote"} ${relative} (${bytes} bytes).`;
      }),
  });

  const editFile = defineTool({
    name: "edit_file",
    description: "Replace an exact piece of text in a file of your workspace. old_string must match exactly once (include surrounding lines to make it unique), unless replace_all is true.",
    input: z.object({ path: ZPath, old_string: z.string().min(1), new_string: z.string(), replace_all: z.boolean().default(false) }),
    risk: "write",
    preview: async (input, context) => {
      const before = await workspace(context).readTextIfExists(input.path).catch(() => undefined);
      if (before === undefined) return { title: `Edit ${input.path}`, path: input.path, detail: "The file does not exist; the edit will fail." };
      const after = input.replace_all ? before.split(input.old_string).join(input.new_string) : before.replace(input.old_string, () => input.new_string);
      return { title: `Edit ${input.path}`, path: input.path, diff: unifiedDiff(before, after, { path: input.path }) };
    },
    execute: (input, context) =>
      withToolErrors(async () => {
        const files = workspace(context);
        const { relative, text } = await files.readText(input.path);
        const count = text.split(input.old_string).length - 1;
        if (count === 0) {
          return { content: [{ type: "text", text: `old_string was not found in ${relative}. Read the file with view_file and copy the text exactly, including whitespace.` }], isError: true };
        }
        if (count > 1 && !input.replace_all) {
          return { content: [{ type: "text", text: `old_string occurs ${count} times in ${relative}. Add surrounding lines to make it unique, or set replace_all to true.` }], isError: true };
        }
        const updated = input.replace_all ? text.split(input.old_string).join(input.new_string) : text.replace(input.old_string, () => input.new_string);
        await files.writeText(relative, updated);
        return `Edited ${relative}: replaced ${input.replace_all ? count : 1} occurrence${count > 1 && input.replace_all ? "s" : ""}.`;
      }),
  });

  const deleteFile = defineTool({
    name: "delete_file",
    description: "Delete a file from your workspace.",
    input: z.object({ path: ZPath }),
    risk: "write",
    preview: async ({ path }) => ({ title: `Delete ${path}`, path }),
    execute: ({ path }, context) => withToolErrors(async () => `Deleted ${await workspace(context).deleteFile(path)}.`),
  });

  return [listDir, viewFile, writeFile, editFile, ...(options.deleteFile ? [deleteFile] : [])];
}

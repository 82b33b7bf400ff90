import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import type { TWorkspaceFiles } from "@/lib/sandbox/workspace-files";
import type { TToolRisk } from "@/lib/tools/registry";
import type { TWorkspaceAccess, TWorkspaceAnswer, TWorkspaceRequest } from "./host-protocol";

/**
 * A plugin's way into the caller's workspace. The plugin asks (through the host); the app carries
 * the request out here with the very workspace object its own file tools use for this run, so the
 * same rules hold: paths resolved inside the workspace, links not followed out, size and type
 * limits, a worker's folders, e2b's remote files. A plugin never gets a path on this machine.
 */
const log = createLogger("plugins");

/**
 * What one call may do: the manifest's permissions.workspace, but writing only from a tool whose
 * risk is not "read". Read tools run without asking by default, so a plugin cannot change a
 * user's files without the approval policy having had its say on that call.
 */
export function workspaceAccessFor(declared: TWorkspaceAccess, risk: TToolRisk): TWorkspaceAccess {
  if (declared === "none") return "none";
  return declared === "write" && risk !== "read" ? "write" : "read";
}

/**
 * The most a plugin reads in one request. The answer travels to the host as JSON in a request of
 * at most 2 MB (workers/plugins/main.ts), and JSON can make text up to six times longer.
 */
const MAX_READ_BYTES = 256 * 1024;

export async function carryOutWorkspaceRequest(files: TWorkspaceFiles, access: TWorkspaceAccess, request: TWorkspaceRequest): Promise<TWorkspaceAnswer> {
  if (access === "none") return { ok: false, error: "This plugin has no access to the workspace." };
  if (request.op === "write" && access !== "write") return { ok: false, error: "This call may only read the workspace." };
  try {
    switch (request.op) {
      case "list": {
        const { relative, entries } = await files.list(request.path);
        return { ok: true, value: { path: relative, entries } };
      }
      case "read": {
        const { relative, text } = await files.readText(request.path);
        if (Buffer.byteLength(text) > MAX_READ_BYTES) return { ok: false, error: `${relative} is too large for a plugin to read (more than ${MAX_READ_BYTES / 1024} KB).` };
        return { ok: true, value: { path: relative, text } };
      }
      case "write": {
        const { relative, bytes, created } = await files.writeText(request.path, request.text);
        return { ok: true, value: { path: relative, bytes, created } };
      }
    }
  } catch (error) {
    // The workspace's own refusals (outside the workspace, too large, not text) are the plugin's to see.
    if (error instanceof AppError) return { ok: false, error: error.message };
    log.warn("a plugin's workspace request failed", { op: request.op, error });
    return { ok: false, error: `Could not ${request.op} ${request.path} in the workspace.` };
  }
}

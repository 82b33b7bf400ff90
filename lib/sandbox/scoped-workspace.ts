import path from "node:path";
import type { TWorkspaceScope } from "./types";
import { Workspace, type TListEntry, type TWorkspaceFiles, type TWorkspaceLimits } from "./workspace-files";
import { openDirectoryBeneath, realPathOf, WorkspacePathError } from "./workspace-paths";
import type { TWorkspaceOwner } from "./workspace-usage";

/**
 * A worker's file tools: its scratch folder (agents/<agent>/<task>/) is its workspace root, and the
 * task's delivery folder (shared/<task>/) shows up read-only at the same path inside it, so an
 * artifact pointer such as shared/<task>/report.md means the same file to the worker, to the
 * main agent and in the chat. Nothing else of the
 * owner's workspace is reachable: both folders are opened below the owner's workspace without
 * following any symlink (the owner's own agent can write there and could plant one), and each
 * Workspace then insists that its root still resolves to that exact real path. Deliveries are
 * written only by the deliver tool (lib/agents). The quota is the owner's, measured over the whole
 * workspace.
 */
/** Paths a worker may write: "notes.md", "./notes.md" and "/workspace/notes.md" (its shell's view) alike. */
function localPath(requested: string): string {
  const trimmed = requested.trim();
  if (trimmed === "/workspace") return ".";
  if (trimmed.startsWith("/workspace/")) return trimmed.slice("/workspace/".length);
  return trimmed;
}

/** The path inside the delivery folder, if `relative` is in it. */
function inShared(relative: string, shared: string): string | undefined {
  const normalized = path.posix.normalize(relative.replace(/^\.\/+/, ""));
  if (normalized === shared) return ".";
  if (normalized.startsWith(`${shared}/`)) return normalized.slice(shared.length + 1) || ".";
  return undefined;
}

/** Makes the scope's folders (and the `shared` mount point in the scratch folder) and returns their real paths. */
export async function prepareScope(userRoot: string, scope: TWorkspaceScope, owner?: TWorkspaceOwner): Promise<{ root: string; shared?: string }> {
  const rootHandle = await openDirectoryBeneath(userRoot, scope.root, { create: true, owner });
  try {
    const root = await realPathOf(rootHandle);
    if (!scope.shared) return { root };
    // The mount point for the shell; a file or link in its place is refused by openDirectoryBeneath.
    await (await openDirectoryBeneath(root, scope.shared, { create: true, owner })).close();
    const sharedHandle = await openDirectoryBeneath(userRoot, scope.shared, { create: true, owner });
    try {
      return { root, shared: await realPathOf(sharedHandle) };
    } finally {
      await sharedHandle.close();
    }
  } finally {
    await rootHandle.close();
  }
}

export class ScopedWorkspace implements TWorkspaceFiles {
  private parts: Promise<{ scratch: Workspace; shared?: Workspace }> | undefined;

  constructor(
    private readonly userRoot: string,
    private readonly scope: TWorkspaceScope,
    private readonly limits: TWorkspaceLimits,
    private readonly owner?: TWorkspaceOwner,
  ) {}

  private workspaces() {
    this.parts ??= prepareScope(this.userRoot, this.scope, this.owner).then((real) => {
      this.scratch = new Workspace(real.root, this.limits, { owner: this.owner, expectedRealRoot: real.root, usageRoot: this.userRoot });
      return { scratch: this.scratch, shared: real.shared ? new Workspace(real.shared, this.limits, { expectedRealRoot: real.shared, readOnly: true }) : undefined };
    });
    // A failed preparation is retried on the next call rather than remembered.
    this.parts.catch(() => (this.parts = undefined));
    return this.parts;
  }

  private async route(requested: string): Promise<{ workspace: Workspace; path: string }> {
    if (typeof requested !== "string") throw new WorkspacePathError("The path must be a string.");
    const { scratch, shared } = await this.workspaces();
    const local = localPath(requested);
    if (this.scope.shared && !path.isAbsolute(local)) {
      const sharedPath = inShared(local, this.scope.shared);
      if (sharedPath !== undefined) return { workspace: shared!, path: sharedPath };
    }
    return { workspace: scratch, path: local };
  }

  /** Shows a path inside the delivery folder the way the worker (and everyone) names it. */
  private shown(workspace: Workspace, relative: string): string {
    if (workspace === this.scratch) return relative;
    return relative === "." ? this.scope.shared! : `${this.scope.shared}/${relative}`;
  }

  private scratch: Workspace | undefined;

  async readText(requested: string) {
    const { workspace, path: local } = await this.route(requested);
    const read = await workspace.readText(local);
    return { ...read, relative: this.shown(workspace, read.relative) };
  }

  async readTextIfExists(requested: string) {
    const { workspace, path: local } = await this.route(requested);
    return workspace.readTextIfExists(local);
  }

  async writeText(requested: string, text: string) {
    const { workspace, path: local } = await this.route(requested);
    return workspace.writeText(local, text);
  }

  async deleteFile(requested: string) {
    const { workspace, path: local } = await this.route(requested);
    return workspace.deleteFile(local);
  }

  async list(requested = "."): Promise<{ relative: string; entries: TListEntry[] }> {
    const { workspace, path: local } = await this.route(requested);
    const listed = await workspace.list(local);
    return { ...listed, relative: this.shown(workspace, listed.relative) };
  }
}

/** A writable folder below the user's workspace (deliveries), checked like a worker's folders. */
export function writableFolder(userRoot: string, relative: string, limits: TWorkspaceLimits, owner?: TWorkspaceOwner): TWorkspaceFiles {
  return new ScopedWorkspace(userRoot, { root: relative }, limits, owner);
}

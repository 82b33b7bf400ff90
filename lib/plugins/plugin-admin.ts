import { z } from "zod";
import type { TBundleRead } from "@/lib/bundles/bundle-files";
import { storeBundle } from "@/lib/bundles/bundle-store";
import { approveRevision, highFindings, listRevisions, revisionToEnable, stageRevision, stagedRevisions, type TRevisionView } from "@/lib/bundles/revisions";
import { scanBundle, type TScanFinding, type TScanReport } from "@/lib/bundles/scan-bundle";
import { db } from "@/lib/db/client";
import type { Plugin, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { registerPluginSkills } from "@/lib/skills/skill-store";
import { describePermissions, validateManifest, type TPluginManifest, type TValidatedManifest } from "./manifest";
import { configView, type TConfigView } from "./plugin-config";
import { manifestOf, readManifestIn, syncBundledPlugins } from "./plugin-registry";
import { pluginSpec, pluginStates, restartPlugin, syncPlugins } from "./plugin-runtime";
import { forgetSkillListings } from "@/lib/skills/skill-store";

/**
 * Admin side of plugins: the list with each plugin's status and last error, enable / disable
 * (an uploaded plugin only in a reviewed version, pinned by its SHA-256), configuration, uploads.
 */
export type TPluginStatus = "running" | "starting" | "restarting" | "failed" | "stopped" | "disabled" | "staged" | "invalid" | "unavailable";

export type TAdminPlugin = {
  id: string;
  name: string;
  version: string;
  description: string;
  source: "bundled" | "uploaded";
  enabled: boolean;
  status: TPluginStatus;
  lastError?: string;
  lastErrorAt?: string;
  sha256: string | null;
  permissions: string[];
  tools: { name: string; description: string; risk: string }[];
  staged: { sha256: string; createdAt: string; verdict: TScanReport["verdict"]; high: number; version: string | null } | null;
};

function statusOf(plugin: Plugin, validated: TValidatedManifest | undefined): TPluginStatus {
  if (!validated) return "invalid";
  if (!plugin.enabled) return plugin.source === "UPLOADED" && !plugin.sha256 ? "staged" : "disabled";
  const { states, hostAvailable } = pluginStates();
  if (!hostAvailable) return "unavailable";
  const state = states.get(plugin.id);
  if (!state) return "failed";
  return state.status;
}

function toAdmin(plugin: Plugin, staged: Awaited<ReturnType<typeof stagedRevisions>>): TAdminPlugin {
  const validated = manifestOf(plugin);
  const status = statusOf(plugin, validated);
  const pending = staged.get(plugin.id);
  const state = pluginStates().states.get(plugin.id);
  const lastError = state?.lastError ?? plugin.lastError ?? undefined;
  return {
    id: plugin.id,
    name: plugin.name,
    version: plugin.version,
    description: plugin.description,
    source: plugin.source === "UPLOADED" ? "uploaded" : "bundled",
    enabled: plugin.enabled,
    status,
    ...(lastError ? { lastError } : {}),
    ...(plugin.lastErrorAt ? { lastErrorAt: plugin.lastErrorAt.toISOString() } : {}),
    sha256: plugin.sha256,
    permissions: validated ? describePermissions(validated.manifest) : [],
    tools: plugin.tools as TAdminPlugin["tools"],
    staged: pending
      ? { sha256: pending.sha256, createdAt: pending.createdAt.toISOString(), verdict: (pending.report as unknown as TScanReport).verdict, high: highFindings(pending.report as unknown as TScanReport), version: pending.version }
      : null,
  };
}

export async function listPluginsForAdmin(options: { refresh?: boolean } = {}): Promise<TAdminPlugin[]> {
  await syncBundledPlugins();
  if (options.refresh) await syncPlugins();
  const [plugins, staged] = await Promise.all([db().plugin.findMany({ orderBy: { id: "asc" } }), stagedRevisions("PLUGIN")]);
  return plugins.map((plugin) => toAdmin(plugin, staged));
}

export async function getPluginForAdmin(id: string): Promise<{ plugin: TAdminPlugin; config: TConfigView; revisions: TRevisionView[] }> {
  const plugin = await db().plugin.findUnique({ where: { id } });
  if (!plugin) throw new AppError("not_found", "No such plugin.");
  return { plugin: toAdmin(plugin, await stagedRevisions("PLUGIN")), config: configView(plugin), revisions: await listRevisions("PLUGIN", id) };
}

export type TPluginUploadOutcome = { status: "staged" | "approved" | "refused"; id?: string; sha256: string; report: TScanReport };

export async function stagePluginUpload(options: { bundle: TBundleRead; uploadedById: string }): Promise<TPluginUploadOutcome> {
  const { bundle } = options;
  const formatFindings: TScanFinding[] = [];
  let manifest: TPluginManifest | undefined;
  if (!bundle.refusals.length) {
    try {
      manifest = readManifestIn("", (name) => bundle.files.find((file) => file.path === name)?.data.toString("utf8")).manifest;
      if (!bundle.files.some((file) => file.path === manifest!.entry)) throw new Error(`its entry ${manifest.entry} is not in the bundle`);
    } catch (error) {
      manifest = undefined;
      formatFindings.push({ severity: "blocked", rule: "invalid-manifest", detail: `The plugin cannot be installed: ${(error as Error).message}.` });
    }
  }
  const scanned = scanBundle(bundle.files, { refusals: bundle.refusals, declaredHosts: manifest?.permissions.network.hosts ?? [] });
  const report: TScanReport = { ...scanned, findings: [...formatFindings, ...scanned.findings], verdict: formatFindings.length ? "refused" : scanned.verdict };
  if (report.verdict === "refused" || !manifest) return { status: "refused", sha256: report.sha256, report };
  const existing = await db().plugin.findUnique({ where: { id: manifest.id } });
  if (existing && existing.source !== "UPLOADED") {
    return { status: "refused", id: manifest.id, sha256: report.sha256, report: { ...report, verdict: "refused", findings: [{ severity: "blocked", rule: "id-taken", detail: `A bundled plugin already has the id ${manifest.id}.` }, ...report.findings] } };
  }
  const directory = await storeBundle({ kind: "plugins", name: manifest.id, sha256: report.sha256, files: bundle.files });
  const revision = await stageRevision({ kind: "PLUGIN", name: manifest.id, version: manifest.version, sha256: report.sha256, report, metadata: manifest as unknown as Prisma.InputJsonValue, directory, uploadedById: options.uploadedById });
  if (!existing) {
    await db().plugin.create({
      data: { id: manifest.id, name: manifest.name, version: manifest.version, description: manifest.description, source: "UPLOADED", enabled: false, directory, manifest: manifest as unknown as Prisma.InputJsonValue },
    });
  }
  return { status: revision.status === "APPROVED" ? "approved" : "staged", id: manifest.id, sha256: report.sha256, report };
}

export const ZPluginPatch = z.strictObject({
  enabled: z.boolean(),
  /** Enable exactly this reviewed version (the one in the report); the waiting one when absent. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** Needed to enable a version whose report has high findings. */
  acknowledgeRisks: z.boolean().optional(),
});

export async function updatePlugin(options: { id: string; patch: z.infer<typeof ZPluginPatch>; adminId: string }): Promise<TAdminPlugin> {
  const { id, patch } = options;
  await syncBundledPlugins();
  let plugin = await db().plugin.findUnique({ where: { id } });
  if (!plugin) throw new AppError("not_found", "No such plugin.");
  if (!patch.enabled) {
    await db().plugin.update({ where: { id }, data: { enabled: false } });
    forgetSkillListings();
    await syncPlugins();
    return (await getPluginForAdmin(id)).plugin;
  }
  if (plugin.source === "UPLOADED") {
    const revision = await revisionToEnable("PLUGIN", id, patch.sha256);
    if (patch.sha256 && !revision) throw new AppError("conflict", "No reviewed or waiting version of this plugin has that SHA-256.");
    if (revision && revision.sha256 !== plugin.sha256) {
      const high = highFindings(revision.report as unknown as TScanReport);
      if (revision.status === "STAGED" && high && !patch.acknowledgeRisks) {
        throw new AppError("conflict", `This version has ${high} high-risk finding${high === 1 ? "" : "s"} in its report. Read them, then enable it with acknowledgeRisks: true if you trust it.`);
      }
      const manifest = validateManifest(revision.metadata).manifest;
      if (revision.status === "STAGED") await approveRevision(revision.id, options.adminId);
      plugin = await db().plugin.update({
        where: { id },
        data: { directory: revision.directory, sha256: revision.sha256, manifest: manifest as unknown as Prisma.InputJsonValue, name: manifest.name, version: manifest.version, description: manifest.description, lastError: null, lastErrorAt: null },
      });
      await registerPluginSkills(id, revision.directory, manifest.skills);
    } else if (!plugin.sha256) throw new AppError("conflict", "This plugin has no reviewed version to enable.");
  }
  const built = pluginSpec(plugin);
  if ("error" in built) throw new AppError("conflict", `The plugin cannot be enabled: ${built.error}`);
  await db().plugin.update({ where: { id }, data: { enabled: true } });
  forgetSkillListings();
  // Enabling again after a failure starts it afresh (its crash count too).
  await restartPlugin(id);
  return (await getPluginForAdmin(id)).plugin;
}

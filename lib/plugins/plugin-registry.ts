import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { db } from "@/lib/db/client";
import type { Plugin, Prisma } from "@/lib/db/generated/client";
import { createLogger } from "@/lib/observability/logger";
import { bundledPluginRoots } from "@/lib/skills/skill-folders";
import { registerPluginSkills } from "@/lib/skills/skill-store";
import { MANIFEST_FILES, validateManifest, type TPluginManifest, type TValidatedManifest } from "./manifest";

/**
 * Plugins known to this installation: the bundled ones (folders under `plugins/`, or
 * XCLAW_BUNDLED_PLUGINS) are read into the `plugins` table on start; uploaded ones get their row
 * when they are staged. An invalid manifest becomes the row's lastError, shown on /admin/plugins.
 */
const log = createLogger("plugins");

/** Reads the manifest in a plugin folder (exactly one of openclaw.plugin.json / xclaw.plugin.json). */
export function readManifestIn(directory: string, readFile: (name: string) => string | undefined = (name) => (existsSync(path.join(directory, name)) ? readFileSync(path.join(directory, name), "utf8") : undefined)): TValidatedManifest {
  const found = MANIFEST_FILES.flatMap((name) => {
    const text = readFile(name);
    return text === undefined ? [] : [{ name, text }];
  });
  if (!found.length) throw new Error(`there is no ${MANIFEST_FILES.join(" or ")}`);
  if (found.length > 1) throw new Error(`there are two manifests (${MANIFEST_FILES.join(" and ")}); keep one`);
  let raw: unknown;
  try {
    raw = JSON.parse(found[0]!.text);
  } catch (error) {
    throw new Error(`${found[0]!.name} is not valid JSON: ${(error as Error).message}`);
  }
  return validateManifest(raw);
}

export function manifestOf(plugin: Plugin): TValidatedManifest | undefined {
  if (!plugin.manifest) return undefined;
  try {
    return validateManifest(plugin.manifest);
  } catch {
    return undefined;
  }
}

async function syncBundledFolder(directory: string) {
  const folderName = path.basename(directory);
  let validated: TValidatedManifest;
  try {
    validated = readManifestIn(directory);
  } catch (error) {
    const reason = `Invalid manifest: ${(error as Error).message}.`;
    if (!/^[a-z][a-z0-9_-]{0,39}$/.test(folderName)) return log.warn("skipping a plugin folder with an invalid manifest", { directory, reason });
    const existing = await db().plugin.findUnique({ where: { id: folderName } });
    if (existing && existing.source !== "BUNDLED") return;
    await db().plugin.upsert({
      where: { id: folderName },
      create: { id: folderName, name: folderName, version: "?", source: "BUNDLED", directory, manifest: undefined, lastError: reason, lastErrorAt: new Date() },
      update: { manifest: undefined, lastError: reason, lastErrorAt: new Date(), directory },
    });
    return log.warn("a bundled plugin has an invalid manifest", { directory, reason });
  }
  const { manifest } = validated;
  const existing = await db().plugin.findUnique({ where: { id: manifest.id } });
  if (existing && existing.source !== "BUNDLED") return log.warn("a bundled plugin has the id of an uploaded one; keeping the upload", { id: manifest.id });
  const fields = { name: manifest.name, version: manifest.version, description: manifest.description, directory, manifest: manifest as unknown as Prisma.InputJsonValue };
  // A manifest error that is now fixed is cleared; a runtime error stays until the plugin runs again.
  const clearError = existing?.lastError?.startsWith("Invalid manifest") ? { lastError: null, lastErrorAt: null } : {};
  await db().plugin.upsert({
    where: { id: manifest.id },
    create: { id: manifest.id, source: "BUNDLED", enabled: manifest.enabledByDefault, ...fields },
    update: { ...fields, ...clearError },
  });
  await registerPluginSkills(manifest.id, directory, manifest.skills);
}

let synced: Promise<void> | undefined;

/** Brings the bundled plugins' rows up to date with their folders (once per process). */
export function syncBundledPlugins(force = false): Promise<void> {
  if (!synced || force) {
    synced = (async () => {
      for (const root of bundledPluginRoots()) {
        if (!existsSync(root)) continue;
        for (const entry of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
          if (entry.isDirectory()) await syncBundledFolder(path.join(root, entry.name));
        }
      }
    })().catch((error: unknown) => {
      synced = undefined;
      throw error;
    });
  }
  return synced;
}

export type { TPluginManifest };

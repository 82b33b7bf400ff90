import { readFile } from "node:fs/promises";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { verifyBundleFolder } from "@/lib/bundles/bundle-hash";
import { db } from "@/lib/db/client";
import type { Prisma, Skill } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { parseSkillMarkdown, type TSkillFrontMatter } from "./skill-format";
import { bundledPluginSkillFolders, bundledSkillRoots, missingRequirements, readSkillFolder, skillFoldersIn } from "./skill-folders";

/**
 * The skills someone may use: global skills (bundled, shipped in a plugin, or uploaded and
 * reviewed) that are enabled and visible to them, plus their own personal ones. A skill whose
 * requirements are missing, whose plugin is off or whose files changed after review is listed with
 * the reason and never offered to the model.
 */
const log = createLogger("skills");

export type TSkillSource = "bundled" | "uploaded" | "plugin" | "personal";

export type TSkillListing = { name: string; description: string; available: boolean; reason?: string; source: TSkillSource; userInvocable: boolean };

export type TLoadedSkill = { name: string; description: string; body: string; source: TSkillSource; directory: string | null; userInvocable: boolean };

function sourceOf(skill: Skill): TSkillSource {
  return skill.source === "BUNDLED" ? "bundled" : skill.source === "PLUGIN" ? "plugin" : "uploaded";
}

async function upsertFolderSkill(directory: string, data: { source: "BUNDLED" | "PLUGIN"; pluginId?: string }) {
  const folderName = path.basename(directory);
  try {
    const { frontMatter } = readSkillFolder(directory);
    const fields = { description: frontMatter.description, source: data.source, pluginId: data.pluginId ?? null, directory, frontMatter: frontMatter as Prisma.InputJsonValue, lastError: null, sha256: null };
    const existing = await db().skill.findUnique({ where: { name: frontMatter.name } });
    // An uploaded skill of the same name stays: bundled files never replace a reviewed upload.
    if (existing && existing.source === "UPLOADED") return log.warn("a bundled skill has the name of an uploaded one; keeping the upload", { name: frontMatter.name, directory });
    await db().skill.upsert({ where: { name: frontMatter.name }, create: { name: frontMatter.name, enabled: true, ...fields }, update: fields });
  } catch (error) {
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(folderName) || folderName.length > 64) return log.warn("skipping a skill folder with an invalid name", { directory });
    const reason = (error as Error).message;
    await db().skill.upsert({
      where: { name: folderName },
      create: { name: folderName, description: "", source: data.source, pluginId: data.pluginId ?? null, directory, frontMatter: {}, enabled: true, lastError: reason },
      update: { lastError: reason, directory },
    });
  }
}

let synced: Promise<void> | undefined;

/** Brings the bundled skills' rows up to date with the folders (once per process). */
export function syncBundledSkills(force = false): Promise<void> {
  if (!synced || force) {
    synced = (async () => {
      for (const root of bundledSkillRoots()) for (const directory of skillFoldersIn(root)) await upsertFolderSkill(directory, { source: "BUNDLED" });
      for (const { pluginId, directory } of bundledPluginSkillFolders()) await upsertFolderSkill(directory, { source: "PLUGIN", pluginId });
    })().catch((error: unknown) => {
      synced = undefined;
      throw error;
    });
  }
  return synced;
}

/** Registers the skills a plugin ships (its manifest's `skills` folders). */
export async function registerPluginSkills(pluginId: string, pluginDirectory: string, skillDirectories: readonly string[]): Promise<void> {
  for (const relative of skillDirectories) {
    const root = path.resolve(pluginDirectory, relative);
    if (!root.startsWith(`${path.resolve(pluginDirectory)}${path.sep}`) && root !== path.resolve(pluginDirectory)) continue;
    for (const directory of skillFoldersIn(root)) await upsertFolderSkill(directory, { source: "PLUGIN", pluginId });
  }
}

type TViewer = { id: string; isAdmin: boolean };

async function viewer(userId: string): Promise<TViewer> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { id: true, role: true } });
  if (!user) throw new AppError("not_found", "No such user.");
  return { id: user.id, isAdmin: user.role === "ADMIN" };
}

function visibleTo(skill: Skill, who: TViewer): boolean {
  if (!skill.enabled) return false;
  if (skill.visibility === "ADMINS") return who.isAdmin;
  if (skill.visibility === "USERS") return skill.allowedUserIds.includes(who.id);
  return true;
}

/** Why a visible global skill cannot be used now, or undefined when it can. */
function unavailableReason(skill: Skill, enabledPlugins: Map<string, string>, allPlugins: Map<string, string>): string | undefined {
  if (skill.lastError) return `invalid: ${skill.lastError}`;
  if (skill.pluginId && !enabledPlugins.has(skill.pluginId)) return `needs the plugin ${allPlugins.get(skill.pluginId) ?? skill.pluginId}, which is not enabled`;
  const missing = missingRequirements(skill.frontMatter as TSkillFrontMatter);
  return missing.length ? `requires ${missing.join(", ")}` : undefined;
}

async function pluginNames() {
  const plugins = await db().plugin.findMany({ select: { id: true, name: true, enabled: true } });
  return { enabled: new Map(plugins.filter((plugin) => plugin.enabled).map((plugin) => [plugin.id, plugin.name])), all: new Map(plugins.map((plugin) => [plugin.id, plugin.name])) };
}

/**
 * A person's skill listing is read before every run's first model call, so it is remembered for a
 * few seconds; any change to skills or plugins in this process forgets it at once, other app
 * processes see the change within LISTING_TTL_MS. The shared part (the enabled global skills and
 * the plugins) is read once for everyone, not once per person: at 100 people chatting, that was
 * 200 of the 400 statements their listings cost every few seconds.
 */
const LISTING_TTL_MS = 5_000;
type TCatalog = { skills: Skill[]; enabledPlugins: Map<string, string>; allPlugins: Map<string, string> };
const { listings: listingCache, catalog: catalogCache } = processSingleton("skills.caches", () => ({
  listings: new LRUCache<string, Promise<TSkillListing[]>>({ max: 10_000, ttl: LISTING_TTL_MS }),
  catalog: new LRUCache<"catalog", Promise<TCatalog>>({ max: 1, ttl: LISTING_TTL_MS }),
}));

export function forgetSkillListings(): void {
  listingCache.clear();
  catalogCache.clear();
}

/** The remembered read of `key`, or a new one; a failed read is not remembered, so the next caller asks again. */
function remembered<TKey extends string, TValue>(cache: LRUCache<TKey, Promise<TValue>>, key: TKey, read: () => Promise<TValue>): Promise<TValue> {
  const cached = cache.get(key);
  if (cached) return cached;
  const value = read();
  cache.set(key, value);
  value.catch(() => {
    if (cache.get(key) === value) cache.delete(key);
  });
  return value;
}

function globalCatalog(): Promise<TCatalog> {
  return remembered(catalogCache, "catalog", async () => {
    await syncBundledSkills();
    const [skills, plugins] = await Promise.all([db().skill.findMany({ where: { enabled: true }, orderBy: { name: "asc" } }), pluginNames()]);
    return { skills, enabledPlugins: plugins.enabled, allPlugins: plugins.all };
  });
}

export function listSkillsForUser(userId: string): Promise<TSkillListing[]> {
  return remembered(listingCache, userId, () => readSkillsForUser(userId));
}

async function readSkillsForUser(userId: string): Promise<TSkillListing[]> {
  // One round trip of the person's own: who they are (for visibility) and their personal skills.
  const [catalog, who, personal] = await Promise.all([globalCatalog(), viewer(userId), db().userSkill.findMany({ where: { userId }, orderBy: { name: "asc" } })]);
  const listings: TSkillListing[] = catalog.skills
    .filter((skill) => visibleTo(skill, who))
    .map((skill) => {
      const reason = unavailableReason(skill, catalog.enabledPlugins, catalog.allPlugins);
      return {
        name: skill.name,
        description: skill.description,
        available: !reason,
        ...(reason ? { reason } : {}),
        source: sourceOf(skill),
        userInvocable: (skill.frontMatter as TSkillFrontMatter)["user-invocable"] !== false,
      };
    });
  const taken = new Set(listings.map((listing) => listing.name));
  for (const skill of personal) {
    if (taken.has(skill.name)) listings.push({ name: skill.name, description: skill.description, available: false, reason: "a shared skill has the same name; rename yours", source: "personal", userInvocable: true });
    else listings.push({ name: skill.name, description: skill.description, available: true, source: "personal", userInvocable: true });
  }
  return listings;
}

/** A skill's instructions for this user; refused when they may not use it (404) or it is unavailable (409). */
export async function loadSkillForUser(options: { userId: string; name: string }): Promise<TLoadedSkill> {
  await syncBundledSkills();
  const who = await viewer(options.userId);
  const skill = await db().skill.findUnique({ where: { name: options.name } });
  if (skill && visibleTo(skill, who)) {
    const plugins = await pluginNames();
    const reason = unavailableReason(skill, plugins.enabled, plugins.all);
    if (reason) throw new AppError("conflict", `The skill ${skill.name} is unavailable: ${reason}.`);
    let text: string;
    try {
      if (skill.sha256) {
        const files = await verifyBundleFolder(skill.directory, skill.sha256);
        text = files.find((file) => file.path === "SKILL.md")?.data.toString("utf8") ?? "";
      } else text = await readFile(path.join(skill.directory, "SKILL.md"), "utf8");
    } catch (error) {
      log.error("a skill's files cannot be used", { name: skill.name, error });
      throw new AppError("conflict", `The skill ${skill.name} cannot be used: ${(error as Error).message}. An administrator needs to review it again.`);
    }
    const { frontMatter, body } = parseSkillMarkdown(text);
    return { name: skill.name, description: skill.description, body, source: sourceOf(skill), directory: skill.directory, userInvocable: frontMatter["user-invocable"] !== false };
  }
  const personal = await db().userSkill.findUnique({ where: { userId_name: { userId: options.userId, name: options.name } } });
  if (personal) return { name: personal.name, description: personal.description, body: personal.body, source: "personal", directory: null, userInvocable: true };
  throw new AppError("not_found", `There is no skill called ${options.name} that you can use. /skills lists yours.`);
}

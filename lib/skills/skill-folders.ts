import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { environment, manifestVariable } from "@/lib/config/environment";
import { parseSkillMarkdown, skillRequirements, type TParsedSkill, type TSkillFrontMatter } from "./skill-format";

/**
 * Skill folders on disk: the bundled ones (`skills/` in the repository, or XCLAW_BUNDLED_SKILLS),
 * those inside plugins, and reviewed uploads. A folder is a skill when it holds a SKILL.md.
 */
export function bundledSkillRoots(): string[] {
  return environment().XCLAW_BUNDLED_SKILLS ?? [path.join(process.cwd(), "skills")];
}

/** Where the bundled plugins are (plugins/ or XCLAW_BUNDLED_PLUGINS); their manifests may name skill folders. */
export function bundledPluginRoots(): string[] {
  return environment().XCLAW_BUNDLED_PLUGINS ?? [path.join(process.cwd(), "plugins")];
}

/**
 * The skill folders bundled plugins ship, read from their manifests' `id` and `skills` only (the
 * plugin itself is validated by lib/plugins), so skills are listed even before any plugin runs.
 */
export function bundledPluginSkillFolders(): { pluginId: string; directory: string }[] {
  const found: { pluginId: string; directory: string }[] = [];
  for (const root of bundledPluginRoots()) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const pluginDirectory = path.join(root, entry.name);
      for (const name of ["openclaw.plugin.json", "xclaw.plugin.json"]) {
        const file = path.join(pluginDirectory, name);
        if (!existsSync(file)) continue;
        try {
          const manifest = JSON.parse(readFileSync(file, "utf8")) as { id?: unknown; skills?: unknown };
          if (typeof manifest.id !== "string" || !Array.isArray(manifest.skills)) continue;
          for (const relative of manifest.skills) {
            if (typeof relative !== "string") continue;
            const skillsRoot = path.resolve(pluginDirectory, relative);
            if (!skillsRoot.startsWith(`${pluginDirectory}${path.sep}`)) continue;
            for (const directory of skillFoldersIn(skillsRoot)) found.push({ pluginId: manifest.id, directory });
          }
        } catch {
          // An unreadable manifest is reported on /admin/plugins.
        }
      }
    }
  }
  return found;
}

/** The skill folders directly inside a root (each with a SKILL.md). */
export function skillFoldersIn(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, entry.name, "SKILL.md")))
    .map((entry) => path.join(root, entry.name))
    .sort();
}

export function readSkillFolder(directory: string): TParsedSkill {
  const file = path.join(directory, "SKILL.md");
  if (statSync(file).size > 256 * 1024) throw new Error("SKILL.md is larger than 256 KiB");
  return parseSkillMarkdown(readFileSync(file, "utf8"), { folderName: path.basename(directory) });
}

let binCache: { at: number; found: Map<string, boolean> } | undefined;

/** Is an executable of this name on the server's PATH (bubblewrap shares /usr with the host)? */
function hasBinary(name: string): boolean {
  if (!binCache || Date.now() - binCache.at > 60_000) binCache = { at: Date.now(), found: new Map() };
  const known = binCache.found.get(name);
  if (known !== undefined) return known;
  const found =
    /^[A-Za-z0-9._+-]+$/.test(name) &&
    (environment().PATH ?? "").split(path.delimiter).some((directory) => {
      try {
        accessSync(path.join(directory, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  binCache.found.set(name, found);
  return found;
}

/** What is missing for this skill to work here, in words ("requires bin:gh"); empty when nothing. */
export function missingRequirements(frontMatter: TSkillFrontMatter): string[] {
  const { bins, env } = skillRequirements(frontMatter);
  return [...bins.filter((bin) => !hasBinary(bin)).map((bin) => `bin:${bin}`), ...env.filter((name) => !manifestVariable(name)).map((name) => `env:${name}`)];
}

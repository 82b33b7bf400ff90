import { parse as parseYaml } from "yaml";
import { z } from "zod";

/**
 * SKILL.md: YAML front matter and a Markdown body, per the Agent Skills format (agentskills.io):
 * `name` (the folder's name: lowercase letters, digits and single hyphens, at most 64 characters),
 * `description` (at most 1024 characters: what it does and when to use it), optional `license`,
 * `compatibility`, `allowed-tools` and `metadata`; plus OpenClaw's `user-invocable` and
 * `metadata.openclaw.requires {bins, env}` (also read under `metadata.xclaw`). The front matter is
 * split off by hand and parsed as plain YAML (no custom tags, no aliases): gray-matter would also
 * accept JavaScript front matter, which it evaluates.
 */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const ZSkillName = z
  .string()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(SKILL_NAME, "must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen");

const ZStringList = z.array(z.string().min(1).max(200)).max(50);

const ZOpenclawMetadata = z.looseObject({
  emoji: z.string().max(16).optional(),
  requires: z.looseObject({ bins: ZStringList.optional(), env: ZStringList.optional() }).optional(),
  /** Hosts the skill's instructions may send the agent to; other URLs are flagged in the review. */
  hosts: ZStringList.optional(),
});

export const ZSkillFrontMatter = z.looseObject({
  name: ZSkillName,
  description: z.string().trim().min(1, "must not be empty").max(1024, "must be at most 1024 characters"),
  license: z.string().max(500).optional(),
  compatibility: z.string().max(500).optional(),
  "allowed-tools": z.union([z.string().max(1000), ZStringList]).optional(),
  "user-invocable": z.boolean().optional(),
  metadata: z.looseObject({ openclaw: ZOpenclawMetadata.optional(), xclaw: ZOpenclawMetadata.optional() }).optional(),
});

export type TSkillFrontMatter = z.infer<typeof ZSkillFrontMatter>;

export type TParsedSkill = { frontMatter: TSkillFrontMatter; body: string };

export class SkillFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SkillFormatError";
  }
}

/** Parses SKILL.md; throws SkillFormatError with a reason a person can act on. */
export function parseSkillMarkdown(text: string, options: { folderName?: string } = {}): TParsedSkill {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!normalized.startsWith("---\n")) throw new SkillFormatError("SKILL.md must start with YAML front matter between two --- lines.");
  const end = normalized.indexOf("\n---", 3);
  if (end < 0) throw new SkillFormatError("The front matter of SKILL.md is not closed with a --- line.");
  const afterMarker = normalized.indexOf("\n", end + 4);
  const yamlText = normalized.slice(4, end + 1);
  const body = afterMarker < 0 ? "" : normalized.slice(afterMarker + 1);
  let raw: unknown;
  try {
    raw = parseYaml(yamlText, { maxAliasCount: 0, customTags: [], schema: "core" });
  } catch (error) {
    throw new SkillFormatError(`The front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  const parsed = ZSkillFrontMatter.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SkillFormatError(`Front matter ${issue.path.length ? `"${issue.path.join(".")}"` : ""} ${issue.message}.`.replace("  ", " "));
  }
  if (options.folderName !== undefined && parsed.data.name !== options.folderName) {
    throw new SkillFormatError(`The skill's name "${parsed.data.name}" must equal its folder's name "${options.folderName}".`);
  }
  if (!body.trim()) throw new SkillFormatError("SKILL.md has no instructions after the front matter.");
  return { frontMatter: parsed.data, body };
}

export function skillRequirements(frontMatter: TSkillFrontMatter): { bins: string[]; env: string[] } {
  const meta = frontMatter.metadata?.xclaw ?? frontMatter.metadata?.openclaw;
  return { bins: meta?.requires?.bins ?? [], env: meta?.requires?.env ?? [] };
}

export function skillDeclaredHosts(frontMatter: TSkillFrontMatter): string[] {
  return [...(frontMatter.metadata?.openclaw?.hosts ?? []), ...(frontMatter.metadata?.xclaw?.hosts ?? [])];
}

/** `{baseDir}` in a body becomes the skill's folder as the agent sees it (inside its sandbox). */
export function resolveBaseDir(body: string, baseDir: string): string {
  return body.replaceAll("{baseDir}", baseDir);
}

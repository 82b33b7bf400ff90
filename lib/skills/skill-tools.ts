import { z } from "zod";
import type { TBehaviourConfig } from "@/lib/config/behaviour";
import { createLogger } from "@/lib/observability/logger";
import type { TMessage } from "@/lib/providers/types";
import { internText } from "@/lib/text/intern-text";
import { defineTool, type TTool } from "@/lib/tools/registry";
import { matchesByKeywords } from "./keywords";
import { resolveBaseDir } from "./skill-format";
import { listSkillsForUser, loadSkillForUser, type TSkillListing } from "./skill-store";
import { materializeSkill, skillBaseDir } from "./skill-workspace";

/**
 * How skills reach the model (progressive disclosure): the catalog — names and descriptions of
 * the skills this person may use, at most skills.catalogLimit — follows the stable system prompt,
 * and `skill_load` returns one skill's instructions when the model decides it needs them. `$name`
 * in a message loads that skill for the message; with skills.selection: keywords, so does the seeds'
 * keyword rule.
 */
const log = createLogger("skills");

async function skillText(options: { userId: string; sessionId: string; name: string }): Promise<string> {
  const skill = await loadSkillForUser({ userId: options.userId, name: options.name });
  const skipped = await materializeSkill({ userId: options.userId, sessionId: options.sessionId, skill });
  const baseDir = skillBaseDir(skill.name);
  const lines = [`# Skill: ${skill.name}`, skill.directory ? `Its files are in ${baseDir} (run its scripts only with the shell tool).` : "", "", resolveBaseDir(skill.body, baseDir).trim()];
  if (skipped.length) lines.push("", `(Not copied to the workspace: ${skipped.join(", ")}.)`);
  return lines.filter((line, index) => line !== "" || index > 1).join("\n");
}

export const skillLoadTool: TTool = defineTool({
  name: "skill_load",
  description: "Load the instructions of one of the skills listed under \"Skills\" by its name, then follow them.",
  input: z.object({ name: z.string().trim().min(1).max(64).describe("The skill's name, e.g. sysinfo") }),
  risk: "read",
  async execute({ name }, context) {
    return skillText({ userId: context.userId, sessionId: context.sessionId, name });
  },
});

export function catalogSection(skills: readonly TSkillListing[], limit: number): string {
  const usable = skills.filter((skill) => skill.available).slice(0, limit);
  if (!usable.length) return "";
  return [
    "## Skills",
    "Skills are instructions for particular tasks. When a task matches a skill below, call skill_load with its name before you start, and follow it. A skill's scripts run only through the shell tool.",
    ...usable.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, " ").trim()}`),
  ].join("\n");
}

function lastUserText(messages: readonly TMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === "user") return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  }
  return "";
}

const DOLLAR_NAME = /(?:^|[\s(（，,])\$([a-z0-9]+(?:-[a-z0-9]+)*)(?![\w-])/g;

/** The skills a message asks for with `$name`, in order, without repeats. */
export function requestedSkillNames(text: string): string[] {
  return [...new Set([...text.matchAll(DOLLAR_NAME)].map((match) => match[1]!))];
}

const MAX_LOADED_PER_MESSAGE = 3;

/** The prepare hook of one run: catalog once per run, skills for a message once per message. */
export function skillsPrepareStep(context: { userId: string; sessionId: string; config: TBehaviourConfig }) {
  let listing: Promise<TSkillListing[]> | undefined;
  let loaded: { message: string; text: Promise<string> } | undefined;

  const forMessage = async (message: string, skills: TSkillListing[]): Promise<string> => {
    const invocable = skills.filter((skill) => skill.available && skill.userInvocable);
    const names = requestedSkillNames(message).filter((name) => invocable.some((skill) => skill.name === name));
    const viaKeywords =
      context.config.skills.selection === "keywords"
        ? invocable.filter((skill) => !names.includes(skill.name) && matchesByKeywords(skill.description, message, context.config.skills.keywordThreshold)).map((skill) => skill.name)
        : [];
    const sections: string[] = [];
    for (const [name, why] of [...names.map((name) => [name, "the user asked for it with $" + name] as const), ...viaKeywords.map((name) => [name, "it matches the message"] as const)].slice(0, MAX_LOADED_PER_MESSAGE)) {
      try {
        sections.push(`## Skill loaded for this message (${why})\n\n${await skillText({ userId: context.userId, sessionId: context.sessionId, name })}`);
      } catch (error) {
        log.warn("a requested skill could not be loaded", { name, error });
        sections.push(`## Skill ${name} could not be loaded: ${(error as Error).message}`);
      }
    }
    return sections.join("\n\n");
  };

  return async (input: { iteration: number; system: string; messages: TMessage[] }) => {
    listing ??= listSkillsForUser(context.userId).catch((error: unknown) => {
      log.warn("the skills catalog is unavailable for this run", { error });
      return [];
    });
    const skills = await listing;
    const message = lastUserText(input.messages);
    if (loaded?.message !== message) loaded = { message, text: forMessage(message, skills) };
    const parts = [input.system, catalogSection(skills, context.config.skills.catalogLimit), await loaded.text].filter(Boolean);
    // The same prompt and catalog for most runs: one shared copy (lib/text/intern-text.ts).
    return { system: internText(parts.join("\n\n")) };
  };
}

/** The reply to `/skills`: every skill this person may use, ✅ or ❌ with the reason. */
export async function formatSkillsCommand(userId: string): Promise<string> {
  const skills = await listSkillsForUser(userId);
  if (!skills.length) return "No skills are available to you yet. You can write your own on the Skills page.";
  const rows = skills.map((skill) => {
    const note = skill.available ? (skill.userInvocable ? "" : " (loaded by the agent when needed)") : ` — ${skill.reason}`;
    return `- ${skill.available ? "✅" : "❌"} **${skill.name}**${skill.source === "personal" ? " (yours)" : ""} — ${skill.description.replace(/\s+/g, " ").trim()}${note}`;
  });
  return ["Skills:", ...rows, "", "Type `$name` in a message to use one."].join("\n");
}

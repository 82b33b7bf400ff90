import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { listSkillsForUser, loadSkillForUser } from "@/lib/skills/skill-store";

/**
 * The user's skills as MCP prompts: every skill they may use and invoke themselves (bundled,
 * uploaded, from a plugin, or their own), named as in xclaw; getting one returns its instructions,
 * read with the same visibility and availability checks as the agent's skill_load. A skill's files
 * (scripts, references) stay on the xclaw server, so the prompt says how to use them there.
 */
export async function registerSkillPrompts(server: McpServer, options: { userId: string }) {
  const { userId } = options;
  const skills = (await listSkillsForUser(userId)).filter((skill) => skill.available && skill.userInvocable);
  for (const listing of skills) {
    server.registerPrompt(listing.name, { title: listing.name, description: listing.description }, async () => {
      // Read again: the skill may have been changed or withdrawn since the list.
      const skill = await loadSkillForUser({ userId, name: listing.name });
      const files = skill.directory
        ? `\n\n(This skill comes with files that live on the xclaw server. To run it with them, send the task to xclaw with the chat tool and write $${skill.name} in the message.)`
        : "";
      return {
        description: skill.description,
        messages: [{ role: "user", content: { type: "text", text: `# Skill: ${skill.name}\n\n${skill.body.trim()}${files}` } }],
      };
    });
  }
}

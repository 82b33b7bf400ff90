import { internText } from "@/lib/text/intern-text";
import type { ToolRegistry } from "@/lib/tools/registry";

/**
 * The system prompt: who the agent is, the tools it has (from the registry), and admin instructions.
 * Identical for most runs, so they share one copy (internText).
 */
export function buildSystemPrompt(options: { tools: ToolRegistry; instructions?: string; now?: Date }): string {
  const tools = options.tools.list().map((tool) => `- ${tool.name} (${tool.risk}): ${tool.description}`);
  const text = [
    "You are xclaw, a capable assistant that can use tools to get things done.",
    "Answer in the language the user writes in. Use Markdown for structure and fenced code blocks for code.",
    "Use a tool when it gives a more reliable answer than guessing (for example arithmetic or the current time).",
    "If a tool fails, read the error, fix the arguments or try another approach, and tell the user what happened if you cannot recover.",
    `Current date: ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`,
    tools.length ? `\nTools available:\n${tools.join("\n")}` : "",
    options.instructions?.trim() ? `\n${options.instructions.trim()}` : "",
  ]
    .filter(Boolean)
    .join("\n");
  return internText(text);
}

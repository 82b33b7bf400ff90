import { internText } from "@/lib/text/intern-text";
import type { ToolRegistry } from "@/lib/tools/registry";

/**
 * The system prompt: who the agent is, how it works with tools, and admin instructions. Identical
 * for most runs, so they share one copy (internText).
 *
 * The tools themselves are not listed here: every provider already sends them with their
 * descriptions and schemas (native tool calling), or lists them in the prompt itself (the text
 * protocol, lib/providers/text-tool-protocol.ts). A second list cost about 1,800 tokens per model
 * call and 7 KB of every waiting request (ARCHITECTURE.md, "Under load").
 */
export function buildSystemPrompt(options: { tools: ToolRegistry; instructions?: string; now?: Date }): string {
  const hasTools = options.tools.list().length > 0;
  const text = [
    "You are xclaw, a capable assistant that can use tools to get things done.",
    "Answer in the language the user writes in. Use Markdown for structure and fenced code blocks for code.",
    hasTools ? "Use a tool when it gives a more reliable answer than guessing (for example arithmetic or the current time)." : "",
    hasTools ? "If a tool fails, read the error, fix the arguments or try another approach, and tell the user what happened if you cannot recover." : "",
    hasTools ? "Tools that change files, run commands or act on the web may wait for the user to approve them; if a call is denied, do not repeat it unchanged." : "",
    `Current date: ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`,
    options.instructions?.trim() ? `\n${options.instructions.trim()}` : "",
  ]
    .filter(Boolean)
    .join("\n");
  return internText(text);
}

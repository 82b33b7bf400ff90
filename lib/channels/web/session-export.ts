import { getSessionView } from "./session-view";
import type { TChatMessage, TSessionView } from "@/lib/wire/chat";

/**
 * "Export chat": the conversation as its owner sees it, as Markdown (to read or paste elsewhere)
 * or as JSON (everything, including tool calls with their inputs and results). Built from the same
 * web view as the chat page, so an export shows what the page shows.
 */
export type TExportFormat = "markdown" | "json";

const FENCE = /`{3,}/g;

/** A code fence longer than any run of backticks inside, so the content cannot close it. */
function fenced(text: string, language = ""): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(FENCE), (match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? "";
  } catch {
    return String(value);
  }
}

function messageMarkdown(message: TChatMessage): string {
  const blocks: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && part.text.trim()) blocks.push(part.text.trim());
    else if (part.type === "data-attachment") blocks.push(`📎 ${part.data.name} (\`${part.data.path}\`)`);
    else if (part.type === "data-notice") blocks.push(`> ${part.data.text.replace(/\n/g, "\n> ")}`);
    else if (part.type === "dynamic-tool") {
      const lines = [`**Tool \`${part.toolName}\`**`, fenced(json(part.input), "json")];
      if (part.state === "output-available") {
        const output = part.output;
        const text = output && typeof output === "object" && "text" in output && typeof output.text === "string" ? output.text : json(output);
        lines.push("Result:", fenced(text));
      } else if (part.state === "output-error") lines.push(`Error: ${part.errorText}`);
      blocks.push(lines.join("\n\n"));
    } else if (part.type === "data-approval") blocks.push(`> Approval for \`${part.data.toolName}\`: ${part.data.status}${part.data.reason ? ` (${part.data.reason})` : ""}`);
  }
  return blocks.join("\n\n");
}

export function toMarkdown(view: TSessionView): string {
  const header = [`# ${view.session.title}`, "", `Exported from xclaw on ${new Date().toISOString()}.`];
  const body = view.messages
    .map((message) => {
      const content = messageMarkdown(message);
      if (!content) return "";
      return `## ${message.role === "user" ? "You" : "xclaw"}\n\n${content}`;
    })
    .filter(Boolean);
  return [...header, "", ...body.flatMap((block) => [block, ""])].join("\n");
}

export async function exportSession(options: { userId: string; sessionId: string; format: TExportFormat }): Promise<{ body: string; contentType: string; fileName: string }> {
  const view = await getSessionView(options);
  const base = view.session.title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60).toLowerCase() || "chat";
  if (options.format === "json") {
    const document = { format: "xclaw-chat", version: 1, exportedAt: new Date().toISOString(), session: view.session, messages: view.messages };
    return { body: JSON.stringify(document, null, 2), contentType: "application/json; charset=utf-8", fileName: `${base}.json` };
  }
  return { body: toMarkdown(view), contentType: "text/markdown; charset=utf-8", fileName: `${base}.md` };
}

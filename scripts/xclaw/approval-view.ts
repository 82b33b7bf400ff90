import { readApprovalPreview } from "../../components/chat/message-model";
import type { TApprovalDecision } from "../../components/chat/types";
import type { TApprovalView } from "../../lib/wire/chat";
import type { TLineInput } from "./line-input";
import type { TTerminalWriter } from "./terminal-style";

/**
 * A tool call waiting for approval, shown in the terminal with what the web card shows
 * (components/chat/approval-card.tsx: title, tool and risk, the site data would go to, the
 * command, the file, the diff, the detail), read by the same function, readApprovalPreview, and
 * decided with the same body the card posts: approve or deny, optionally "always allow" the tool
 * or the site in this chat.
 */
export function approvalLines(approval: TApprovalView, paint: TTerminalWriter["paint"]): string[] {
  const preview = readApprovalPreview(approval.preview);
  const bar = paint("yellow", "  ┃ ");
  const lines = [paint("bold", preview.title ?? `Run ${approval.toolName}`), paint("dim", `${approval.toolName} · risk: ${approval.risk}`)];
  if (preview.origin) lines.push(`Sends data to ${paint("bold", preview.origin)}, a site this chat does not allow yet.`);
  if (preview.command) lines.push(...`$ ${preview.command}`.split("\n"));
  if (preview.path) lines.push(`File: ${preview.path}`);
  if (preview.diff) {
    for (const line of preview.diff.replace(/\n$/, "").split("\n")) {
      const style = line.startsWith("+++") || line.startsWith("---") ? "bold" : line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : line.startsWith("@@") ? "cyan" : undefined;
      lines.push(style ? paint(style, line) : line);
    }
  }
  if (preview.detail) lines.push(...preview.detail.split("\n"));
  return lines.map((line) => `${bar}${line}`);
}

/** The choices, in the prompt's words; `site` only when the call sends data to a new site. */
export function approvalQuestion(approval: TApprovalView): string {
  const site = siteOf(approval);
  return `Approve? [y]es, [n]o, [a]lways allow ${approval.toolName} in this chat${site ? `, [s]ite: always allow ${site} in this chat` : ""}: `;
}

function siteOf(approval: TApprovalView): string | undefined {
  const origin = readApprovalPreview(approval.preview).origin;
  return origin ? new URL(origin).host : undefined;
}

/** An answer to approvalQuestion, or undefined when it is none of the choices (asked again). */
export function parseApprovalAnswer(answer: string, approval: TApprovalView): TApprovalDecision | undefined {
  const word = answer.trim().toLowerCase();
  if (["y", "yes", "approve"].includes(word)) return { decision: "approve" };
  if (["n", "no", "deny"].includes(word)) return { decision: "deny" };
  if (["a", "always"].includes(word)) return { decision: "approve", alwaysAllow: true };
  if (siteOf(approval) && ["s", "site"].includes(word)) return { decision: "approve", alwaysAllowSite: true };
  return undefined;
}

/** Asks until the answer is one of the choices; undefined when the input ends first. */
export async function askApproval(input: TLineInput, approval: TApprovalView, out: TTerminalWriter): Promise<TApprovalDecision | undefined> {
  for (;;) {
    out.endLine();
    const answer = await input.ask(out.paint("yellow", approvalQuestion(approval)));
    if (answer === undefined) return undefined;
    const decision = parseApprovalAnswer(answer, approval);
    if (decision) return decision;
    out.line(out.paint("dim", `"${answer.trim()}" is not one of the choices.`));
  }
}

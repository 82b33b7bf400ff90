import { completeText, type TRetryPolicy } from "@/lib/providers/provider-chain";
import type { TProvider } from "@/lib/providers/types";

/**
 * Team chats (seeds chapter 09, "static team"): a message goes straight to one member when the
 * router is sure, otherwise to the orchestrator (the main agent, which can delegate).
 * - Keyword rules, Chinese and English: a team's own rules first, then the built-in ones for the
 *   bundled agents. English keywords match at the start of a word ("optimi" matches optimise and
 *   optimize), Chinese ones anywhere (Chinese has no spaces between words).
 * - A message that matches two members' keywords is a compound task ("写代码并做代码审查"):
 *   it goes to the orchestrator, which can split it.
 * - Optionally a model router: the model answers one member name (or "none") when no rule matched.
 */
export type TTeamRule = { member: string; keywords: string[] };
export type TRouteDecision = { member: string; reason: string } | { member: null; reason: string };

export const BUILT_IN_RULES: readonly TTeamRule[] = [
  { member: "reviewer", keywords: ["审查", "评审", "代码审查", "审核代码", "review", "code review"] },
  { member: "writer", keywords: ["文档", "注释", "说明文档", "翻译", "摘要", "readme", "jsdoc", "docstring", "documentation", "docs", "translate", "summary"] },
  { member: "optimizer", keywords: ["性能", "优化", "复杂度", "提速", "performance", "optimi", "complexity", "profil", "speed up", "faster"] },
  { member: "skeptic", keywords: ["漏洞", "安全风险", "风险", "注入", "攻击", "sql injection", "xss", "vulnerab", "security risk", "risk", "exploit"] },
  { member: "coder", keywords: ["写代码", "实现", "编写", "开发", "修复", "重构", "bug", "implement", "write code", "fix", "refactor", "build a", "create a function"] },
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function keywordMatches(text: string, keyword: string): boolean {
  const needle = keyword.trim().toLowerCase();
  if (!needle) return false;
  const haystack = text.toLowerCase();
  // ASCII words need a word start; anything with CJK (or other non-ASCII) matches anywhere.
  if (/^[\x20-\x7e]+$/.test(needle)) return new RegExp(`(^|[^a-z0-9_])${escape(needle)}`).test(haystack);
  return haystack.includes(needle);
}

function matchedMembers(text: string, rules: readonly TTeamRule[], members: readonly string[]): Map<string, string> {
  const matched = new Map<string, string>();
  for (const rule of rules) {
    if (!members.includes(rule.member) || matched.has(rule.member)) continue;
    const keyword = rule.keywords.find((candidate) => keywordMatches(text, candidate));
    if (keyword) matched.set(rule.member, keyword);
  }
  return matched;
}

/** The keyword router alone (no model): a member, or null for the orchestrator. */
export function routeByKeywords(text: string, members: readonly string[], rules: readonly TTeamRule[] = []): TRouteDecision {
  for (const set of [rules, BUILT_IN_RULES]) {
    const matched = matchedMembers(text, set, members);
    if (matched.size === 1) {
      const [[member, keyword]] = [...matched.entries()] as [[string, string]];
      return { member, reason: `keyword “${keyword}”` };
    }
    if (matched.size > 1) return { member: null, reason: `several members match (${[...matched.keys()].join(", ")}): the orchestrator splits the task` };
  }
  return { member: null, reason: "no keyword matched" };
}

/** Asks the model for one member name; anything else means the orchestrator. */
export async function routeByModel(options: {
  text: string;
  members: readonly { name: string; description: string }[];
  providers: TProvider[];
  retryPolicy: TRetryPolicy;
  signal?: AbortSignal;
}): Promise<TRouteDecision> {
  const list = options.members.map((member) => `- ${member.name}: ${member.description}`).join("\n");
  const answer = await completeText(
    options.providers,
    {
      system: "You route a user's message to one expert of a team. Reply with exactly one word: the expert's name, or none.",
      user: `Experts:\n${list}\n\nAnswer with the one expert whose speciality the request needs, or none when it needs several steps or none of them fits.\n\nRequest:\n${options.text.slice(0, 4_000)}`,
      maxOutputTokens: 20,
      signal: options.signal,
    },
    options.retryPolicy,
  );
  const word = answer.trim().toLowerCase().replace(/[^a-z0-9_-]/g, " ").trim().split(/\s+/)[0] ?? "";
  const member = options.members.find((candidate) => candidate.name === word);
  return member ? { member: member.name, reason: "chosen by the model router" } : { member: null, reason: "the model router chose none" };
}

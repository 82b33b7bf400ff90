"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useSessionList } from "@/components/app-shell/session-list-context";
import { ShownError, useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName, TextField } from "@/components/ui/text-field";
import type { TAgentSummary } from "@/lib/wire/agents";

/**
 * Starts a team chat: the members, optional keyword rules ("member: word, word" per line; Chinese
 * and English both work) and the model router. Messages a rule or the router assigns go straight to
 * that member; the rest to the main agent, which can delegate.
 */
function parseRules(text: string, members: string[]): { rules: { member: string; keywords: string[] }[]; problem?: string } {
  const rules: { member: string; keywords: string[] }[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const colon = line.search(/[:：]/);
    if (colon < 1) return { rules, problem: `Line ${index + 1}: write "member: keyword, keyword".` };
    const member = line.slice(0, colon).trim();
    if (!members.includes(member)) return { rules, problem: `Line ${index + 1}: ${member} is not a member of this team.` };
    const keywords = line
      .slice(colon + 1)
      .split(/[,，、]/)
      .map((keyword) => keyword.trim())
      .filter(Boolean);
    if (!keywords.length) return { rules, problem: `Line ${index + 1}: give at least one keyword.` };
    rules.push({ member, keywords });
  }
  return { rules };
}

export function TeamForm({ agents }: { agents: TAgentSummary[] }) {
  const router = useRouter();
  const { refresh } = useSessionList();
  const formId = useId();
  const [members, setMembers] = useState<string[]>(agents.filter((agent) => agent.bundled).map((agent) => agent.name));
  const [title, setTitle] = useState("");
  const [rules, setRules] = useState("");
  const [modelRouter, setModelRouter] = useState(false);
  const { busy, feedback, submit } = useAction();

  const onSubmit = submit(
    "start",
    async () => {
      const parsed = parseRules(rules, members);
      if (parsed.problem) throw new ShownError(parsed.problem);
      if (!members.length) throw new ShownError("Pick at least one member.");
      const { session } = await apiRequest<{ session: { id: string } }>("/api/teams", {
        method: "POST",
        body: { members, rules: parsed.rules, modelRouter, ...(title.trim() ? { title: title.trim() } : {}) },
      });
      void refresh();
      router.push(`/chat/${session.id}`);
    },
    { leaving: true },
  );

  return (
    <form onSubmit={onSubmit} className="space-y-4" noValidate aria-label="New team chat">
      <fieldset>
        <legend className="mb-1.5 text-sm font-medium text-neutral-800 dark:text-neutral-200">Members</legend>
        <div className="grid gap-1.5 sm:grid-cols-2">
          {agents.map((agent) => (
            <label key={agent.name} className="flex items-start gap-2 text-sm text-neutral-800 dark:text-neutral-200">
              <input
                type="checkbox"
                className="mt-0.5 size-4"
                checked={members.includes(agent.name)}
                onChange={(event) => setMembers((current) => (event.target.checked ? [...current, agent.name] : current.filter((name) => name !== agent.name)))}
              />
              <span>
                <span className="font-mono">{agent.name}</span>
                <span className="block text-xs text-neutral-500 dark:text-neutral-400">{agent.description}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <TextField label="Title" name="title" value={title} onChange={(event) => setTitle(event.target.value)} optional maxLength={200} placeholder="Team: coder, reviewer, …" />
      <div>
        <label htmlFor={`${formId}-rules`} className="mb-1.5 block text-sm font-medium text-neutral-800 dark:text-neutral-200">
          Keyword rules <span className="text-xs font-normal text-neutral-500 dark:text-neutral-400">(optional)</span>
        </label>
        <textarea
          id={`${formId}-rules`}
          value={rules}
          onChange={(event) => setRules(event.target.value)}
          rows={3}
          className={`${inputClassName} h-auto py-2 font-mono text-sm`}
          placeholder={"writer: 周报, weekly report\nskeptic: 合规, compliance"}
          aria-describedby={`${formId}-rules-hint`}
        />
        <p id={`${formId}-rules-hint`} className="mt-1.5 text-xs text-neutral-500 dark:text-neutral-400">
          Checked before the built-in rules (审查/review → reviewer, 文档/docs → writer, 性能/performance → optimizer, 漏洞/vulnerability → skeptic, 实现/implement → coder). A message that matches two members goes to the main agent.
        </p>
      </div>
      <label className="flex items-center gap-2 text-sm text-neutral-800 dark:text-neutral-200">
        <input type="checkbox" checked={modelRouter} onChange={(event) => setModelRouter(event.target.checked)} className="size-4" />
        When no keyword matches, let the model pick a member (one extra short model call)
      </label>
      <FeedbackAlert feedback={feedback} />
      <Button type="submit" pending={busy}>
        Start team chat
      </Button>
    </form>
  );
}

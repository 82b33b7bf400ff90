import type { Metadata } from "next";
import Link from "next/link";
import { AgentProfiles } from "@/components/agents/agent-profiles";
import { TeamForm } from "@/components/agents/team-form";
import { PageHeader, Section } from "@/components/ui/card";
import { DEFAULT_WORKER_TOOLS } from "@/lib/agents/bundled-profiles";
import { agentSummaries, listOwnProfiles, toProfileView } from "@/lib/agents/profiles";
import { requirePageUser } from "@/lib/auth/page-session";
import { getBehaviourConfig } from "@/lib/config/behaviour";

export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage() {
  const user = await requirePageUser();
  const [agents, own] = await Promise.all([agentSummaries(user.id), listOwnProfiles(user.id)]);
  const { agents: limits } = getBehaviourConfig();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader
        title="Agents"
        description="Workers the main agent can hand tasks to (delegate), ask together (debate) or chain (pipeline). Each worker runs in a session of its own, with its own folder, and asks you before anything risky, like your chats do."
      />
      <div className="space-y-6">
        <Section id="available" title="Available agents" description={user.role === "ADMIN" ? <>Global agents are managed on <Link href="/admin/agents" className="underline underline-offset-2">Admin → Agents</Link>.</> : "Bundled and global agents, and your own."}>
          <ul aria-label="Available agents" className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {agents.map((agent) => (
              <li key={agent.name} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-2">
                <span className="font-mono text-sm font-medium text-neutral-900 dark:text-neutral-100">{agent.name}</span>
                <span className="rounded bg-neutral-100 px-1.5 py-0.5 text-[11px] text-neutral-600 dark:bg-neutral-800 dark:text-neutral-300">{agent.bundled ? "bundled" : agent.scope === "mine" ? "yours" : "global"}</span>
                <span className="w-full text-sm text-neutral-600 sm:w-auto sm:flex-1 dark:text-neutral-400">{agent.description}</span>
              </li>
            ))}
          </ul>
        </Section>
        <Section id="mine" title="Your agents" description="Only you can use these.">
          <AgentProfiles mode="mine" initialProfiles={own.map(toProfileView)} defaults={{ maxIterations: limits.workerMaxIterations, timeoutSeconds: limits.workerTimeoutSeconds, tools: DEFAULT_WORKER_TOOLS }} />
        </Section>
        <Section id="team" title="Team chat" description="A chat where each message goes straight to the member it is for, who remembers its own earlier turns; anything else goes to the main agent.">
          <TeamForm agents={agents} />
        </Section>
      </div>
    </div>
  );
}

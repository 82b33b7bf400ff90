import type { Metadata } from "next";
import { AgentProfiles } from "@/components/agents/agent-profiles";
import { PageHeader, Section } from "@/components/ui/card";
import { BUNDLED_PROFILES, DEFAULT_WORKER_TOOLS } from "@/lib/agents/bundled-profiles";
import { listGlobalProfiles, toProfileView } from "@/lib/agents/profiles";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { getBehaviourConfig } from "@/lib/config/behaviour";

export const metadata: Metadata = { title: "Agents · Admin" };

export default async function AdminAgentsPage() {
  await requirePageAdmin();
  const profiles = await listGlobalProfiles();
  const { agents } = getBehaviourConfig();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Agents" description={`Global agents: every user can delegate to them. Always there as well: ${BUNDLED_PROFILES.map((profile) => profile.name).join(", ")}.`} />
      <Section id="global" title="Global agents" description={`Limits for every worker are in xclaw.yaml (agents:): ${agents.maxParallelWorkers} at once per call, ${agents.maxDelegationsPerRun} per run, depth ${agents.maxDepth}.`}>
        <AgentProfiles mode="global" initialProfiles={profiles.map(toProfileView)} defaults={{ maxIterations: agents.workerMaxIterations, timeoutSeconds: agents.workerTimeoutSeconds, tools: DEFAULT_WORKER_TOOLS }} />
      </Section>
    </div>
  );
}

import type { Metadata } from "next";
import { JobsManager } from "@/components/jobs/jobs-manager";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { toolChoices } from "@/lib/chronos/tool-catalog";
import { listJobs, toJobView } from "@/lib/chronos/jobs-store";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { listChannels } from "@/lib/notifications/channels";
import { providerStatus } from "@/lib/providers/registry";

export const metadata: Metadata = { title: "Scheduled jobs" };

export default async function JobsPage() {
  const user = await requirePageUser();
  const [jobs, channels] = await Promise.all([listJobs({ userId: user.id }), listChannels({ userId: user.id })]);
  const settings = getBehaviourConfig().chronos;
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader
        title="Scheduled jobs"
        description="The agent works on a schedule while you are away: quiet when all is well, a notification when something needs you. Every run keeps its full trace."
      />
      <JobsManager
        initialJobs={jobs.map(toJobView)}
        tools={toolChoices()}
        channels={channels}
        maxJobs={settings.maxJobsPerUser}
        providerConfigured={providerStatus().some((provider) => provider.configured)}
        limits={{
          minIntervalMinutes: settings.minIntervalMinutes,
          defaultMaxSteps: settings.defaultMaxSteps,
          maxMaxSteps: settings.maxMaxSteps,
          defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
          maxTimeoutSeconds: settings.maxTimeoutSeconds,
        }}
      />
    </div>
  );
}

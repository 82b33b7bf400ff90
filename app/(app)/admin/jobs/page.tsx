import type { Metadata } from "next";
import { JobsCatalog } from "@/components/admin/jobs-catalog";
import { JobRunsTable } from "@/components/admin/jobs-runs-table";
import { ScheduledJobsAdmin } from "@/components/admin/scheduled-jobs";
import { Alert } from "@/components/ui/alert";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listAllJobs } from "@/lib/chronos/admin-jobs";
import { areSchedulesPaused } from "@/lib/chronos/schedules-paused";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { describeJobs, listJobRuns } from "@/lib/jobs/admin-runs";

export const metadata: Metadata = { title: "Jobs" };

export default async function AdminJobsPage() {
  await requirePageAdmin();
  const { runner, jobs } = describeJobs();
  const runs = await listJobRuns({ limit: 100 });
  const keepDays = getBehaviourConfig().jobs.keepDays;
  const [scheduledJobs, schedulesPaused] = await Promise.all([listAllJobs(), areSchedulesPaused()]);
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Jobs" description={`Background work: what ran, what failed and why. Finished runs are kept for ${keepDays} days.`} />
      <div className="space-y-6">
        {runner === "inngest" ? (
          <Alert tone="info">
            Jobs run on Inngest (jobs.runner: inngest), so their runs are in the Inngest dashboard. This page lists runs of the
            embedded runner only.
          </Alert>
        ) : null}
        <Section id="runs" title="Runs" description="Newest first. Open a run to see its event, its steps and its result.">
          <JobRunsTable initialRuns={runs} />
        </Section>
        <Section id="scheduled-jobs" title="Scheduled jobs" description="Every user's scheduled agent jobs (chronos). Pause any of them, or all schedules at once.">
          <ScheduledJobsAdmin initialJobs={scheduledJobs} initialPaused={schedulesPaused} />
        </Section>
        <Section id="jobs" title="Jobs" description="Every job this version of xclaw knows and what starts it. Cron jobs can also be started by hand.">
          <JobsCatalog jobs={jobs} canRunNow={runner === "local"} />
        </Section>
      </div>
    </div>
  );
}

import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";

/**
 * Daily: deletes finished job runs (with their steps) older than jobs.keepDays, and event ids
 * older than the 24-hour window in which a repeated id is ignored.
 */
export const jobsPruneJob = defineJob(
  { id: "jobs.prune", trigger: { cron: "30 3 * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => {
    const runs = await step.run("delete-finished-runs", async () => {
      const cutoff = new Date(Date.now() - getBehaviourConfig().jobs.keepDays * 24 * 3600 * 1000);
      const { count } = await db().jobRun.deleteMany({
        where: { status: { in: ["COMPLETED", "FAILED", "CANCELLED"] }, endedAt: { lt: cutoff } },
      });
      return count;
    });
    const eventIds = await step.run("delete-old-event-ids", async () => {
      const { count } = await db().jobEvent.deleteMany({ where: { receivedAt: { lt: new Date(Date.now() - 24 * 3600 * 1000) } } });
      return count;
    });
    return { runs, eventIds };
  },
);

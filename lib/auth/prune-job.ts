import { defineJob } from "@/lib/jobs/define-job";
import { pruneRateLimitBuckets } from "./rate-limit";
import { pruneRevokedSessions } from "./revoked-sessions";

/**
 * Hourly: rate-limit windows older than a day (every configured window is at most a day long, so
 * they can no longer block anyone) and revoked-session rows of sessions that have expired anyway
 * would otherwise pile up forever.
 */
export const pruneAuthRecordsJob = defineJob(
  { id: "rate-limits.prune", trigger: { cron: "17 * * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => {
    const buckets = await step.run("delete-expired-buckets", () => pruneRateLimitBuckets({ olderThan: new Date(Date.now() - 24 * 3600 * 1000) }));
    const sessions = await step.run("delete-expired-revocations", () => pruneRevokedSessions());
    return { deleted: buckets, revokedSessionsDeleted: sessions };
  },
);

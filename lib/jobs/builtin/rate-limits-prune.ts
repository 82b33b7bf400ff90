import { defineJob } from "@/lib/jobs/define-job";
import { pruneRateLimitBuckets } from "./prune-rate-limit-buckets";

/** Hourly: old sign-in rate-limit windows would otherwise pile up forever. */
export const rateLimitsPruneJob = defineJob(
  { id: "rate-limits.prune", trigger: { cron: "17 * * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => {
    const deleted = await step.run("delete-expired-buckets", () => pruneRateLimitBuckets());
    return { deleted };
  },
);

import { z } from "zod";

/** xclaw.yaml `chronos:` (lib/chronos, lib/notifications), part of ZBehaviourConfig (behaviour.ts). */
// Chronos (scheduled agent jobs, monitoring webhooks, notifications): lib/chronos, lib/notifications.
export const ZChronosConfig = z
  .strictObject({
    /** Schedules that would run more often than this are refused (cron and "every N minutes"). */
    minIntervalMinutes: z.int().min(1).max(1_440).default(5),
    maxJobsPerUser: z.int().min(1).max(10_000).default(20),
    /** Model calls a job's run may make ("max steps"): the default for new jobs and the most allowed. */
    defaultMaxSteps: z.int().min(1).max(100).default(15),
    maxMaxSteps: z.int().min(1).max(100).default(30),
    /** A job's run is stopped after this long: the default for new jobs and the most allowed. */
    defaultTimeoutSeconds: z.int().min(10).max(86_400).default(300),
    maxTimeoutSeconds: z.int().min(10).max(86_400).default(1_800),
    /** Executions (and the sessions with their traces), webhook alerts and notifications are deleted after this. */
    keepDays: z.int().min(1).max(3_650).default(30),
    webhook: z
      .strictObject({
        maxEndpointsPerUser: z.int().min(1).max(1_000).default(10),
        /** Largest alert body accepted; larger ones get 413. */
        maxBodyBytes: z.int().min(1_024).max(16 * 1024 * 1024).default(1024 * 1024),
        /** Deliveries one endpoint may make per minute; beyond it 429 with Retry-After. */
        requestsPerMinute: z.int().min(1).max(10_000).default(30),
        /** How far an HMAC-signed request's timestamp may be from the server's clock. */
        timestampToleranceSeconds: z.int().min(10).max(3_600).default(300),
        /** Alerts of one delivery shown to the triage run; the rest are counted, not shown. */
        maxAlertsPerTriage: z.int().min(1).max(500).default(20),
      })
      .prefault({}),
    notifications: z
      .strictObject({
        /** A notification with the same title as one sent within this many minutes is dropped. */
        dedupeMinutes: z.int().min(0).max(1_440).default(30),
        /** Notifications one user may receive per hour; beyond it they are refused (flood stop). */
        maxPerHour: z.int().min(1).max(10_000).default(20),
        maxChannelsPerUser: z.int().min(1).max(100).default(10),
        /** Each attempt to deliver to a Feishu or webhook channel gives up after this long. */
        timeoutSeconds: z.int().min(1).max(120).default(10),
        /** Private hosts channels may post to anyway (`host:port`, a range such as 10.1.0.0/16). */
        allowedPrivateHosts: z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:.]+\/\d{1,3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+|[A-Za-z0-9.-]+(:\d{1,5})?)$/, "must be host, host:port, [v6]:port or an address range")).default([]),
      })
      .prefault({}),
  })
  .prefault({})
  .refine((chronos) => chronos.defaultMaxSteps <= chronos.maxMaxSteps, { message: "chronos.defaultMaxSteps must be at most chronos.maxMaxSteps" })
  .refine((chronos) => chronos.defaultTimeoutSeconds <= chronos.maxTimeoutSeconds, { message: "chronos.defaultTimeoutSeconds must be at most chronos.maxTimeoutSeconds" });

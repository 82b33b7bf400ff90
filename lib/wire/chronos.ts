/**
 * Wire types of chronos (scheduled jobs, executions, webhook endpoints) and notifications, shared
 * by the API routes and the browser (components/jobs, components/notifications, components/settings).
 * Types only — no runtime code — so client components may import this module. Dates are ISO strings.
 */
export type TNotificationLevel = "info" | "warning" | "critical";

/** A notification in the bell (GET /api/notifications). */
export type TNotificationView = {
  id: string;
  level: TNotificationLevel;
  title: string;
  message: string;
  /** "job Disk check", "alert Prometheus", "chat". */
  source: string;
  /** The session whose run sent it (its trace), if any. */
  sessionId: string | null;
  readAt: string | null;
  createdAt: string;
};

export type TNotificationChannelKind = "feishu" | "webhook" | "log";

export type TNotificationChannelView = {
  id: string;
  name: string;
  kind: TNotificationChannelKind;
  /** Where it posts, without the token a URL may carry: "https://open.feishu.cn/…/a1b2". */
  target: string;
  enabled: boolean;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
  createdAt: string;
};

/** A schedule as the API takes and returns it. */
export type TChronosSchedule = { cron: string; tz: string } | { everyMinutes: number } | { at: string };

export type TChronosExecutionStatus = "queued" | "running" | "silent" | "notified" | "skipped" | "failed" | "timeout";
export type TChronosExecutionTrigger = "schedule" | "catch-up" | "manual" | "webhook";

export type TChronosJobView = {
  id: string;
  name: string;
  schedule: TChronosSchedule;
  /** The schedule in words: "every 15 minutes", "cron 0 2 * * * (Europe/Berlin)". */
  scheduleText: string;
  prompt: string;
  tools: string[];
  maxSteps: number;
  timeoutSeconds: number;
  /** Notification channel ids besides the in-app bell. */
  channels: string[];
  enabled: boolean;
  pausedByAdmin: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastStatus: TChronosExecutionStatus | null;
  /** An execution holds the job (queued or running). */
  running: boolean;
  createdAt: string;
  updatedAt: string;
};

export type TChronosExecutionView = {
  id: string;
  jobId: string | null;
  trigger: TChronosExecutionTrigger;
  scheduledFor: string | null;
  status: TChronosExecutionStatus;
  statusReason: string | null;
  /** The run's session (its full trace); none for skipped executions. */
  sessionId: string | null;
  notifications: number;
  startedAt: string | null;
  endedAt: string | null;
  createdAt: string;
};

/** A tool a job may use, for the job form. */
export type TChronosToolChoice = { name: string; description: string; risk: string; recommended: boolean; required: boolean };

export type TWebhookEndpointView = {
  id: string;
  name: string;
  /** The first characters of the secret. */
  prefix: string;
  /** Where to send alerts (the endpoint id is in the query, for HMAC-signed requests). */
  url: string;
  instructions: string;
  channels: string[];
  enabled: boolean;
  lastUsedAt: string | null;
  createdAt: string;
};

/** Admin view of any user's job. */
export type TAdminChronosJobView = TChronosJobView & { ownerEmail: string };

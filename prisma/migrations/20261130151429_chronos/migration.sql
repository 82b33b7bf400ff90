-- CreateEnum
CREATE TYPE "ChronosScheduleKind" AS ENUM ('CRON', 'EVERY', 'AT');

-- CreateEnum
CREATE TYPE "ChronosExecutionTrigger" AS ENUM ('SCHEDULE', 'CATCH_UP', 'MANUAL', 'WEBHOOK');

-- CreateEnum
CREATE TYPE "ChronosExecutionStatus" AS ENUM ('QUEUED', 'RUNNING', 'SILENT', 'NOTIFIED', 'SKIPPED', 'FAILED', 'TIMEOUT');

-- CreateEnum
CREATE TYPE "NotificationChannelKind" AS ENUM ('FEISHU', 'WEBHOOK', 'LOG');

-- CreateEnum
CREATE TYPE "NotificationLevel" AS ENUM ('INFO', 'WARNING', 'CRITICAL');

-- CreateEnum
CREATE TYPE "NotificationDeliveryStatus" AS ENUM ('PENDING', 'SENT', 'FAILED');

-- CreateTable
CREATE TABLE "chronos_jobs" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "scheduleKind" "ChronosScheduleKind" NOT NULL,
    "cron" TEXT,
    "timezone" TEXT,
    "everyMinutes" INTEGER,
    "runAt" TIMESTAMP(3),
    "anchorAt" TIMESTAMP(3),
    "prompt" TEXT NOT NULL,
    "tools" TEXT[],
    "maxSteps" INTEGER NOT NULL,
    "timeoutSeconds" INTEGER NOT NULL,
    "channelIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "pausedByAdmin" BOOLEAN NOT NULL DEFAULT false,
    "nextRunAt" TIMESTAMP(3),
    "runningExecutionId" UUID,
    "runningSince" TIMESTAMP(3),
    "lastRunAt" TIMESTAMP(3),
    "lastStatus" "ChronosExecutionStatus",
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "chronos_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chronos_executions" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "jobId" UUID,
    "endpointId" UUID,
    "trigger" "ChronosExecutionTrigger" NOT NULL,
    "scheduledFor" TIMESTAMP(3),
    "status" "ChronosExecutionStatus" NOT NULL DEFAULT 'QUEUED',
    "statusReason" TEXT,
    "sessionId" UUID,
    "notifications" INTEGER NOT NULL DEFAULT 0,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chronos_executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "secretSealed" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "channelIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_alerts" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "endpointId" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startsAt" TIMESTAMP(3),
    "name" TEXT NOT NULL,
    "severity" TEXT,
    "summary" TEXT,
    "payload" JSONB NOT NULL,
    "executionId" UUID,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_channels" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "NotificationChannelKind" NOT NULL,
    "configSealed" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "lastSuccessAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "level" "NotificationLevel" NOT NULL,
    "title" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "sessionId" UUID,
    "executionId" UUID,
    "readAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_deliveries" (
    "id" UUID NOT NULL,
    "notificationId" UUID NOT NULL,
    "channelId" UUID NOT NULL,
    "status" "NotificationDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chronos_jobs_nextRunAt_idx" ON "chronos_jobs"("nextRunAt");

-- CreateIndex
CREATE INDEX "chronos_jobs_userId_createdAt_idx" ON "chronos_jobs"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "chronos_executions_sessionId_key" ON "chronos_executions"("sessionId");

-- CreateIndex
CREATE INDEX "chronos_executions_jobId_createdAt_idx" ON "chronos_executions"("jobId", "createdAt");

-- CreateIndex
CREATE INDEX "chronos_executions_userId_createdAt_idx" ON "chronos_executions"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "chronos_executions_status_createdAt_idx" ON "chronos_executions"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "chronos_executions_jobId_scheduledFor_key" ON "chronos_executions"("jobId", "scheduledFor");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_endpoints_secretHash_key" ON "webhook_endpoints"("secretHash");

-- CreateIndex
CREATE INDEX "webhook_endpoints_userId_createdAt_idx" ON "webhook_endpoints"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_alerts_userId_receivedAt_idx" ON "webhook_alerts"("userId", "receivedAt");

-- CreateIndex
CREATE INDEX "webhook_alerts_receivedAt_idx" ON "webhook_alerts"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_alerts_endpointId_dedupeKey_key" ON "webhook_alerts"("endpointId", "dedupeKey");

-- CreateIndex
CREATE INDEX "notification_channels_userId_createdAt_idx" ON "notification_channels"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "notifications_userId_createdAt_idx" ON "notifications"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "notifications_userId_readAt_idx" ON "notifications"("userId", "readAt");

-- CreateIndex
CREATE INDEX "notifications_createdAt_idx" ON "notifications"("createdAt");

-- CreateIndex
CREATE INDEX "notification_deliveries_notificationId_idx" ON "notification_deliveries"("notificationId");

-- CreateIndex
CREATE INDEX "notification_deliveries_channelId_createdAt_idx" ON "notification_deliveries"("channelId", "createdAt");

-- AddForeignKey
ALTER TABLE "chronos_jobs" ADD CONSTRAINT "chronos_jobs_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chronos_executions" ADD CONSTRAINT "chronos_executions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chronos_executions" ADD CONSTRAINT "chronos_executions_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "chronos_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chronos_executions" ADD CONSTRAINT "chronos_executions_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chronos_executions" ADD CONSTRAINT "chronos_executions_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_alerts" ADD CONSTRAINT "webhook_alerts_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "notifications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateEnum
CREATE TYPE "JobRunStatus" AS ENUM ('QUEUED', 'RUNNING', 'SLEEPING', 'COMPLETED', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "JobStepStatus" AS ENUM ('COMPLETED', 'FAILED', 'SLEEPING', 'WAITING');

-- CreateTable
CREATE TABLE "job_runs" (
    "id" UUID NOT NULL,
    "jobId" TEXT NOT NULL,
    "status" "JobRunStatus" NOT NULL DEFAULT 'QUEUED',
    "trigger" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL,
    "runAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "concurrencyKey" TEXT,
    "concurrencyLimit" INTEGER,
    "singletonKey" TEXT,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "parentRunId" UUID,
    "output" JSONB,
    "error" TEXT,
    "startDeadline" TIMESTAMP(3),
    "finishTimeoutMs" INTEGER,
    "finishDeadline" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "job_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_steps" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "stepId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" "JobStepStatus" NOT NULL,
    "output" JSONB,
    "error" TEXT,
    "wakeAt" TIMESTAMP(3),
    "childRunId" UUID,
    "attempt" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "job_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_events" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "job_runs_eventId_idx" ON "job_runs"("eventId");

-- CreateIndex
CREATE INDEX "job_runs_status_runAt_idx" ON "job_runs"("status", "runAt");

-- CreateIndex
CREATE INDEX "job_runs_concurrencyKey_status_idx" ON "job_runs"("concurrencyKey", "status");

-- CreateIndex
CREATE INDEX "job_runs_singletonKey_status_idx" ON "job_runs"("singletonKey", "status");

-- CreateIndex
CREATE INDEX "job_runs_createdAt_idx" ON "job_runs"("createdAt");

-- CreateIndex
CREATE INDEX "job_runs_endedAt_idx" ON "job_runs"("endedAt");

-- CreateIndex
CREATE UNIQUE INDEX "job_steps_runId_stepId_key" ON "job_steps"("runId", "stepId");

-- CreateIndex
CREATE INDEX "job_events_receivedAt_idx" ON "job_events"("receivedAt");

-- AddForeignKey
ALTER TABLE "job_steps" ADD CONSTRAINT "job_steps_runId_fkey" FOREIGN KEY ("runId") REFERENCES "job_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

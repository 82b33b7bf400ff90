-- CreateEnum
CREATE TYPE "RunTrigger" AS ENUM ('WEB', 'JOB', 'WEBHOOK', 'CHANNEL', 'AGENT');

-- AlterEnum
ALTER TYPE "StepType" ADD VALUE 'COMMAND';

-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "runId" UUID,
ADD COLUMN     "stopRequestedAt" TIMESTAMP(3),
ADD COLUMN     "trigger" "RunTrigger" NOT NULL DEFAULT 'WEB';

-- CreateTable
CREATE TABLE "run_event_batches" (
    "id" BIGSERIAL NOT NULL,
    "runId" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "events" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_event_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_event_batches_createdAt_idx" ON "run_event_batches"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "run_event_batches_runId_seq_key" ON "run_event_batches"("runId", "seq");

-- AddForeignKey
ALTER TABLE "run_event_batches" ADD CONSTRAINT "run_event_batches_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

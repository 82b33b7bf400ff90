-- CreateEnum
CREATE TYPE "ChatSessionStatus" AS ENUM ('INIT', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED');

-- CreateEnum
CREATE TYPE "StepType" AS ENUM ('USER_INPUT', 'MODEL_CALL', 'TOOL_CALL', 'SYSTEM_NOTE');

-- CreateEnum
CREATE TYPE "StepStatus" AS ENUM ('RUNNING', 'COMPLETED', 'FAILED');

-- CreateTable
CREATE TABLE "chat_sessions" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "status" "ChatSessionStatus" NOT NULL DEFAULT 'INIT',
    "statusReason" TEXT,
    "runnerId" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "parentSessionId" UUID,
    "forkedFromSeq" INTEGER,
    "nextSeq" INTEGER NOT NULL DEFAULT 1,
    "lastProvider" TEXT,
    "lastModel" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "chat_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "steps" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "parentStepId" UUID,
    "type" "StepType" NOT NULL,
    "name" TEXT NOT NULL,
    "status" "StepStatus" NOT NULL,
    "input" JSONB,
    "output" JSONB,
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "inputTokens" INTEGER,
    "outputTokens" INTEGER,
    "provider" TEXT,
    "model" TEXT,

    CONSTRAINT "steps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chat_sessions_userId_updatedAt_idx" ON "chat_sessions"("userId", "updatedAt");

-- CreateIndex
CREATE INDEX "chat_sessions_status_leaseExpiresAt_idx" ON "chat_sessions"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "steps_userId_startedAt_idx" ON "steps"("userId", "startedAt");

-- CreateIndex
CREATE UNIQUE INDEX "steps_sessionId_seq_key" ON "steps"("sessionId", "seq");

-- AddForeignKey
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_parentSessionId_fkey" FOREIGN KEY ("parentSessionId") REFERENCES "chat_sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "steps" ADD CONSTRAINT "steps_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "steps" ADD CONSTRAINT "steps_parentStepId_fkey" FOREIGN KEY ("parentStepId") REFERENCES "steps"("id") ON DELETE SET NULL ON UPDATE CASCADE;

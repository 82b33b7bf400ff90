-- CreateEnum
CREATE TYPE "AgentTaskStatus" AS ENUM ('QUEUED', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELLED');

-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "runProfile" JSONB;

-- CreateTable
CREATE TABLE "agent_profiles" (
    "id" UUID NOT NULL,
    "userId" UUID,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "systemPrompt" TEXT NOT NULL,
    "allowedTools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "model" TEXT,
    "maxIterations" INTEGER,
    "timeoutSeconds" INTEGER,
    "mayDelegate" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_tasks" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "parentSessionId" UUID NOT NULL,
    "parentStepId" UUID NOT NULL,
    "parentRunId" UUID,
    "toolCallId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "agent" TEXT NOT NULL,
    "taskKey" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "taskHash" TEXT NOT NULL,
    "timeoutMs" INTEGER NOT NULL,
    "status" "AgentTaskStatus" NOT NULL DEFAULT 'QUEUED',
    "dispatchedAt" TIMESTAMP(3),
    "sessionId" UUID,
    "result" JSONB,
    "error" TEXT,
    "artifacts" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "liveText" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_profiles_name_idx" ON "agent_profiles"("name");

-- CreateIndex
CREATE UNIQUE INDEX "agent_profiles_userId_name_key" ON "agent_profiles"("userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tasks_sessionId_key" ON "agent_tasks"("sessionId");

-- CreateIndex
CREATE INDEX "agent_tasks_parentSessionId_createdAt_idx" ON "agent_tasks"("parentSessionId", "createdAt");

-- CreateIndex
CREATE INDEX "agent_tasks_parentRunId_idx" ON "agent_tasks"("parentRunId");

-- CreateIndex
CREATE INDEX "agent_tasks_userId_createdAt_idx" ON "agent_tasks"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tasks_parentStepId_index_key" ON "agent_tasks"("parentStepId", "index");

-- AddForeignKey
ALTER TABLE "agent_profiles" ADD CONSTRAINT "agent_profiles_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

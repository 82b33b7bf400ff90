-- AlterEnum
ALTER TYPE "RunTrigger" ADD VALUE 'API';

-- CreateTable
CREATE TABLE "api_session_waits" (
    "sessionId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "approvalId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_session_waits_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "api_session_waits_userId_idx" ON "api_session_waits"("userId");

-- AddForeignKey
ALTER TABLE "api_session_waits" ADD CONSTRAINT "api_session_waits_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_session_waits" ADD CONSTRAINT "api_session_waits_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

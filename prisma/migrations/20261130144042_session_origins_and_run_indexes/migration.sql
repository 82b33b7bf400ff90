-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "allowedOrigins" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "chat_sessions_runnerId_idx" ON "chat_sessions"("runnerId");

-- CreateIndex
CREATE INDEX "chat_sessions_userId_status_idx" ON "chat_sessions"("userId", "status");

-- CreateEnum
CREATE TYPE "ChannelKind" AS ENUM ('QQ', 'FEISHU');

-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "channelAccountId" UUID,
ADD COLUMN     "channelKind" "ChannelKind";

-- CreateTable
CREATE TABLE "channel_accounts" (
    "id" UUID NOT NULL,
    "kind" "ChannelKind" NOT NULL,
    "name" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "secretsSealed" TEXT NOT NULL,
    "apiBaseUrl" TEXT,
    "tokenUrl" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "lastEventAt" TIMESTAMP(3),
    "lastReplyAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "rejectedCount" INTEGER NOT NULL DEFAULT 0,
    "lastRejectedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "channel_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_bindings" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "externalUserId" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_bindings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_binding_codes" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "codeHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_binding_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_events" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "externalId" TEXT NOT NULL,
    "message" JSONB NOT NULL,
    "handledAt" TIMESTAMP(3),
    "handledBy" TEXT,
    "started" JSONB,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_conversations" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "chatScope" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "sessionId" UUID,
    "replyMessageId" TEXT,
    "replyReceivedAt" TIMESTAMP(3),
    "repliesUsed" INTEGER NOT NULL DEFAULT 0,
    "webOrigin" TEXT,
    "awaitingApprovalId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "channel_conversations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "channel_accounts_createdAt_idx" ON "channel_accounts"("createdAt");

-- CreateIndex
CREATE INDEX "channel_bindings_userId_idx" ON "channel_bindings"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "channel_bindings_accountId_externalUserId_key" ON "channel_bindings"("accountId", "externalUserId");

-- CreateIndex
CREATE UNIQUE INDEX "channel_binding_codes_codeHash_key" ON "channel_binding_codes"("codeHash");

-- CreateIndex
CREATE INDEX "channel_binding_codes_userId_idx" ON "channel_binding_codes"("userId");

-- CreateIndex
CREATE INDEX "channel_binding_codes_expiresAt_idx" ON "channel_binding_codes"("expiresAt");

-- CreateIndex
CREATE INDEX "channel_events_receivedAt_idx" ON "channel_events"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "channel_events_accountId_externalId_key" ON "channel_events"("accountId", "externalId");

-- CreateIndex
CREATE INDEX "channel_conversations_sessionId_idx" ON "channel_conversations"("sessionId");

-- CreateIndex
CREATE UNIQUE INDEX "channel_conversations_accountId_chatScope_userId_key" ON "channel_conversations"("accountId", "chatScope", "userId");

-- AddForeignKey
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_channelAccountId_fkey" FOREIGN KEY ("channelAccountId") REFERENCES "channel_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_bindings" ADD CONSTRAINT "channel_bindings_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "channel_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_bindings" ADD CONSTRAINT "channel_bindings_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_binding_codes" ADD CONSTRAINT "channel_binding_codes_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_events" ADD CONSTRAINT "channel_events_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "channel_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_conversations" ADD CONSTRAINT "channel_conversations_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "channel_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_conversations" ADD CONSTRAINT "channel_conversations_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_conversations" ADD CONSTRAINT "channel_conversations_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateEnum
CREATE TYPE "AccountLinkKind" AS ENUM ('INVITE', 'RESET');

-- AlterTable
ALTER TABLE "chat_sessions" ADD COLUMN     "model" TEXT,
ADD COLUMN     "titleEdited" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "instructions" TEXT;

-- CreateTable
CREATE TABLE "account_links" (
    "id" UUID NOT NULL,
    "kind" "AccountLinkKind" NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "createdById" UUID,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "account_links_tokenHash_key" ON "account_links"("tokenHash");

-- CreateIndex
CREATE INDEX "account_links_userId_kind_idx" ON "account_links"("userId", "kind");

-- AddForeignKey
ALTER TABLE "account_links" ADD CONSTRAINT "account_links_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_links" ADD CONSTRAINT "account_links_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

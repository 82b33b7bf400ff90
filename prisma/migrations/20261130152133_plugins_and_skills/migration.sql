-- CreateEnum
CREATE TYPE "ExtensionKind" AS ENUM ('PLUGIN', 'SKILL');

-- CreateEnum
CREATE TYPE "ExtensionSource" AS ENUM ('BUNDLED', 'UPLOADED', 'PLUGIN');

-- CreateEnum
CREATE TYPE "ExtensionRevisionStatus" AS ENUM ('STAGED', 'APPROVED', 'DISCARDED');

-- CreateEnum
CREATE TYPE "SkillVisibility" AS ENUM ('EVERYONE', 'ADMINS', 'USERS');

-- CreateTable
CREATE TABLE "extension_revisions" (
    "id" UUID NOT NULL,
    "kind" "ExtensionKind" NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT,
    "sha256" TEXT NOT NULL,
    "status" "ExtensionRevisionStatus" NOT NULL DEFAULT 'STAGED',
    "report" JSONB NOT NULL,
    "metadata" JSONB NOT NULL,
    "directory" TEXT NOT NULL,
    "uploadedById" UUID,
    "reviewedById" UUID,
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "extension_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "plugins" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "source" "ExtensionSource" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "directory" TEXT NOT NULL,
    "sha256" TEXT,
    "manifest" JSONB,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secretConfig" TEXT,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "tools" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "plugins_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skills" (
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "source" "ExtensionSource" NOT NULL,
    "pluginId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "visibility" "SkillVisibility" NOT NULL DEFAULT 'EVERYONE',
    "allowedUserIds" UUID[] DEFAULT ARRAY[]::UUID[],
    "directory" TEXT NOT NULL,
    "sha256" TEXT,
    "frontMatter" JSONB NOT NULL,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "skills_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "user_skills" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_skills_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "extension_revisions_kind_name_createdAt_idx" ON "extension_revisions"("kind", "name", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "extension_revisions_kind_name_sha256_key" ON "extension_revisions"("kind", "name", "sha256");

-- CreateIndex
CREATE UNIQUE INDEX "user_skills_userId_name_key" ON "user_skills"("userId", "name");

-- AddForeignKey
ALTER TABLE "user_skills" ADD CONSTRAINT "user_skills_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- API tokens remember the owner's sessionVersion at creation; bearer authentication requires it
-- to equal the owner's current one (sign out everywhere, password change and disabling end tokens).
-- Tokens that exist today were valid a moment ago: they take the owner's current version.
-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "sessionVersion" INTEGER;

UPDATE "api_tokens" SET "sessionVersion" = "users"."sessionVersion" FROM "users" WHERE "users"."id" = "api_tokens"."userId";

ALTER TABLE "api_tokens" ALTER COLUMN "sessionVersion" SET NOT NULL;

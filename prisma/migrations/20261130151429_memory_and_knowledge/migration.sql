-- CreateEnum
CREATE TYPE "MemoryOrigin" AS ENUM ('USER', 'AGENT', 'EXTRACTION');

-- CreateEnum
CREATE TYPE "KnowledgeDocumentStatus" AS ENUM ('PENDING', 'INDEXING', 'READY', 'FAILED');

-- CreateTable
CREATE TABLE "memories" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "content" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "origin" "MemoryOrigin" NOT NULL,
    "sessionId" UUID,
    "contentHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "memories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_settings" (
    "userId" UUID NOT NULL,
    "autoExtract" BOOLEAN NOT NULL DEFAULT true,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "memory_settings_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "memory_extraction_days" (
    "userId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "memory_extraction_days_pkey" PRIMARY KEY ("userId","day")
);

-- CreateTable
CREATE TABLE "memory_extraction_cursors" (
    "sessionId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "lastSeq" INTEGER NOT NULL,
    "extractedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_extraction_cursors_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "knowledge_bases" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "knowledge_bases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_documents" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "knowledgeBaseId" UUID NOT NULL,
    "filename" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "byteSize" INTEGER NOT NULL,
    "contentHash" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status" "KnowledgeDocumentStatus" NOT NULL DEFAULT 'PENDING',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "error" TEXT,
    "chunkCount" INTEGER NOT NULL DEFAULT 0,
    "pageCount" INTEGER,
    "indexedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_document_files" (
    "documentId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "bytes" BYTEA NOT NULL,

    CONSTRAINT "knowledge_document_files_pkey" PRIMARY KEY ("documentId")
);

-- CreateTable
CREATE TABLE "knowledge_chunks" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "knowledgeBaseId" UUID NOT NULL,
    "documentId" UUID NOT NULL,
    "chunkIndex" INTEGER NOT NULL,
    "heading" TEXT,
    "content" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,

    CONSTRAINT "knowledge_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "memories_userId_createdAt_idx" ON "memories"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "memories_userId_contentHash_key" ON "memories"("userId", "contentHash");

-- CreateIndex
CREATE INDEX "knowledge_bases_userId_createdAt_idx" ON "knowledge_bases"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_bases_userId_name_key" ON "knowledge_bases"("userId", "name");

-- CreateIndex
CREATE INDEX "knowledge_documents_userId_knowledgeBaseId_createdAt_idx" ON "knowledge_documents"("userId", "knowledgeBaseId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_documents_knowledgeBaseId_key_key" ON "knowledge_documents"("knowledgeBaseId", "key");

-- CreateIndex
CREATE INDEX "knowledge_chunks_userId_knowledgeBaseId_idx" ON "knowledge_chunks"("userId", "knowledgeBaseId");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_chunks_documentId_chunkIndex_key" ON "knowledge_chunks"("documentId", "chunkIndex");

-- AddForeignKey
ALTER TABLE "memories" ADD CONSTRAINT "memories_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memories" ADD CONSTRAINT "memories_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_settings" ADD CONSTRAINT "memory_settings_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_extraction_days" ADD CONSTRAINT "memory_extraction_days_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_extraction_cursors" ADD CONSTRAINT "memory_extraction_cursors_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "chat_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_knowledgeBaseId_fkey" FOREIGN KEY ("knowledgeBaseId") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_document_files" ADD CONSTRAINT "knowledge_document_files_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "knowledge_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "knowledge_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---- Search data: hand-written, in a schema Prisma does not model --------------------------------
-- Embedding vectors (pgvector) and full-text vectors of memories and knowledge chunks, and the
-- embedding cache. Prisma introspects only the migrations' own schema, so these tables and the HNSW
-- indexes the app creates per embedding model (lib/memory/vector-index.ts) never appear as drift,
-- and no later generated migration drops them. Rows follow their owners through ON DELETE CASCADE.
-- `prisma migrate reset` drops only Prisma's schema: start from a clean slate here.
DROP SCHEMA IF EXISTS "search_index" CASCADE;
CREATE SCHEMA "search_index";

-- One row per memory. `model` is "<embedding model>@<dimensions>" of `embedding` (NULL until it is
-- embedded); searches use only rows of the configured model, so vectors of two models never mix.
-- `embedding` has no fixed size: each model gets its own partial HNSW index on a cast to its size.
CREATE TABLE "search_index"."memory_entries" (
    "memory_id" UUID NOT NULL PRIMARY KEY REFERENCES "memories"("id") ON DELETE CASCADE,
    "user_id" UUID NOT NULL,
    "model" TEXT,
    "embedding" vector,
    -- to_tsvector of the content segmented into words (Intl.Segmenter), so Chinese text matches too
    "search" tsvector NOT NULL
);
CREATE INDEX "memory_entries_search_idx" ON "search_index"."memory_entries" USING gin ("search");
-- A user's own rows: the planner's exact per-user path when a user owns few rows (cheaper than the
-- HNSW scan it would otherwise filter), and per-user counts.
CREATE INDEX "memory_entries_user_idx" ON "search_index"."memory_entries" ("user_id", "model");

CREATE TABLE "search_index"."chunk_entries" (
    "chunk_id" UUID NOT NULL PRIMARY KEY REFERENCES "knowledge_chunks"("id") ON DELETE CASCADE,
    "user_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "model" TEXT,
    "embedding" vector,
    "search" tsvector NOT NULL
);
CREATE INDEX "chunk_entries_search_idx" ON "search_index"."chunk_entries" USING gin ("search");
CREATE INDEX "chunk_entries_user_idx" ON "search_index"."chunk_entries" ("user_id", "model");

-- Embeddings by model and SHA-256 of the embedded text: the same text is never sent twice.
CREATE TABLE "search_index"."embedding_cache" (
    "model" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "embedding" vector NOT NULL,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY ("model", "content_hash")
);
CREATE INDEX "embedding_cache_created_at_idx" ON "search_index"."embedding_cache" ("created_at");

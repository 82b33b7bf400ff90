-- Keep each vector in its row instead of out of line (TOAST). A 1,536-dimension vector is 6 KB,
-- over PostgreSQL's 2 KB default threshold, so it went to the TOAST table, and the exact per-user
-- search (a user's rows through the B-tree, then sorted by distance) read every candidate twice:
-- the row, then its vector through the TOAST index. With the tuple target at a page's size and
-- MAIN storage, a row of up to ~8 KB stays whole in its heap page; a larger vector (more than
-- ~2,000 dimensions) still goes out of line, as MAIN allows as a last resort. Measured in
-- bench/memory.ts and ARCHITECTURE.md ("Memory and knowledge base").
ALTER TABLE "search_index"."memory_entries" SET (toast_tuple_target = 8160);
ALTER TABLE "search_index"."memory_entries" ALTER COLUMN "embedding" SET STORAGE MAIN;
ALTER TABLE "search_index"."chunk_entries" SET (toast_tuple_target = 8160);
ALTER TABLE "search_index"."chunk_entries" ALTER COLUMN "embedding" SET STORAGE MAIN;
-- Rows written before this migration are rewritten once, so they move into their pages too.
UPDATE "search_index"."memory_entries" SET "embedding" = "embedding"::text::vector WHERE "embedding" IS NOT NULL;
UPDATE "search_index"."chunk_entries" SET "embedding" = "embedding"::text::vector WHERE "embedding" IS NOT NULL;

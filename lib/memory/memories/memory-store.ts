import { createHash } from "node:crypto";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { Prisma, type Memory, type MemoryOrigin } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { EmbeddingError, embedTexts, embeddingSettings, type TEmbeddingSettings } from "../search/embeddings";
import { forgetMemoryPresence } from "../memory-presence";
import { writeMemoryEntry, type TEmbedded } from "../search/entries";
import { hybridSearch, vectorSearch, type TSearchMode } from "../search/hybrid-search";
import type { TMemoryOrigin, TMemoryView } from "@/lib/wire/memory";

/**
 * A user's long-term memories: rows in `memories` plus their search row (full text, vector). The
 * same fact is stored once per user: an identical text (after normalising case and spaces) or a
 * near-identical vector (embeddings on, cosine ≥ memory.duplicateSimilarity) is reported as a
 * duplicate of the memory that exists. Without an embedding provider, or when it fails, a memory
 * is saved with its full-text row only and embedded later by memory.backfill.
 */
const log = createLogger("memory");

const ORIGIN_VIEW: Record<MemoryOrigin, TMemoryOrigin> = { USER: "user", AGENT: "agent", EXTRACTION: "extraction" };

export function toMemoryView(memory: Memory, score?: number): TMemoryView {
  return {
    id: memory.id,
    content: memory.content,
    tags: memory.tags,
    origin: ORIGIN_VIEW[memory.origin],
    sessionId: memory.sessionId,
    createdAt: memory.createdAt.toISOString(),
    updatedAt: memory.updatedAt.toISOString(),
    ...(score === undefined ? {} : { score }),
  };
}

/** Case and spacing do not make a different fact. */
export function memoryHash(content: string): string {
  return createHash("sha256").update(content.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim()).digest("hex");
}

function cleanContent(content: string): string {
  const text = content.replace(/\r\n?/g, "\n").trim();
  const { maxCharacters } = getBehaviourConfig().memory;
  if (!text) throw new AppError("bad_request", "A memory needs some text.");
  if (text.length > maxCharacters) throw new AppError("bad_request", `A memory can be at most ${maxCharacters} characters (this one has ${text.length}). Keep one fact per memory.`);
  return text;
}

function cleanTags(tags: readonly string[] | undefined): string[] {
  const cleaned = [...new Set((tags ?? []).map((tag) => tag.trim().toLowerCase().replace(/\s+/g, "-")).filter(Boolean))];
  if (cleaned.length > 20) throw new AppError("bad_request", "A memory can have at most 20 tags.");
  for (const tag of cleaned) if (tag.length > 40) throw new AppError("bad_request", `The tag "${tag.slice(0, 40)}…" is longer than 40 characters.`);
  return cleaned;
}

/** The vector of a memory's text, or undefined (no provider, or it failed: backfill will retry). */
async function embedMemory(settings: TEmbeddingSettings | undefined, text: string): Promise<TEmbedded | undefined> {
  if (!settings) return undefined;
  try {
    const [vector] = await embedTexts(settings, [text]);
    return { modelKey: settings.modelKey, vector: vector! };
  } catch (error) {
    if (!(error instanceof EmbeddingError)) throw error;
    log.warn("could not embed a memory; it is searchable by full text until memory.backfill embeds it", { error: error.message });
    return undefined;
  }
}

export type TDuplicate = { memory: Memory; similarity: number | null };

async function findDuplicate(userId: string, hash: string, embedded: TEmbedded | undefined, exceptId?: string): Promise<TDuplicate | undefined> {
  const same = await db().memory.findFirst({ where: { userId, contentHash: hash, ...(exceptId ? { id: { not: exceptId } } : {}) } });
  if (same) return { memory: same, similarity: null };
  if (!embedded) return undefined;
  const [nearest] = (await vectorSearch("memory_entries", { userId }, embedded.modelKey, embedded.vector, 2)).filter((hit) => hit.id !== exceptId);
  if (!nearest || nearest.similarity < getBehaviourConfig().memory.duplicateSimilarity) return undefined;
  const memory = await db().memory.findFirst({ where: { id: nearest.id, userId } });
  return memory ? { memory, similarity: nearest.similarity } : undefined;
}

export type TSaveMemoryResult = { memory: Memory; created: true } | { memory: Memory; created: false; duplicate: TDuplicate };

export async function saveMemory(options: { userId: string; content: string; tags?: readonly string[]; origin: MemoryOrigin; sessionId?: string | null }): Promise<TSaveMemoryResult> {
  const content = cleanContent(options.content);
  const tags = cleanTags(options.tags);
  const hash = memoryHash(content);
  const embedded = await embedMemory(embeddingSettings(), content);
  const duplicate = await findDuplicate(options.userId, hash, embedded);
  if (duplicate) return { memory: duplicate.memory, created: false, duplicate };
  const { maxPerUser } = getBehaviourConfig().memory;
  if ((await db().memory.count({ where: { userId: options.userId } })) >= maxPerUser) {
    throw new AppError("conflict", `You have ${maxPerUser} memories, the most allowed (memory.maxPerUser). Delete some on Settings → Memory first.`);
  }
  try {
    const memory = await db().$transaction(async (tx) => {
      const created = await tx.memory.create({
        data: { userId: options.userId, content, tags, origin: options.origin, sessionId: options.sessionId ?? null, contentHash: hash },
      });
      await writeMemoryEntry(tx, { memoryId: created.id, userId: options.userId, text: content, embedding: embedded });
      return created;
    });
    forgetMemoryPresence(options.userId);
    return { memory, created: true };
  } catch (error) {
    // The same text saved at the same moment (two tool calls, two tabs).
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const existing = await db().memory.findFirst({ where: { userId: options.userId, contentHash: hash } });
      if (existing) return { memory: existing, created: false, duplicate: { memory: existing, similarity: null } };
    }
    throw error;
  }
}

export async function getMemoryOrThrow(options: { userId: string; id: string }): Promise<Memory> {
  const memory = await db().memory.findFirst({ where: { id: options.id, userId: options.userId } });
  if (!memory) throw new AppError("not_found", "No such memory.");
  return memory;
}

export async function updateMemory(options: { userId: string; id: string; content?: string; tags?: readonly string[] }): Promise<Memory> {
  const existing = await getMemoryOrThrow(options);
  const content = options.content === undefined ? existing.content : cleanContent(options.content);
  const tags = options.tags === undefined ? existing.tags : cleanTags(options.tags);
  const contentChanged = content !== existing.content;
  const hash = memoryHash(content);
  const embedded = contentChanged ? await embedMemory(embeddingSettings(), content) : undefined;
  if (contentChanged && hash !== existing.contentHash) {
    const duplicate = await db().memory.findFirst({ where: { userId: options.userId, contentHash: hash, id: { not: existing.id } } });
    if (duplicate) throw new AppError("conflict", `You already have this memory (${duplicate.id}).`);
  }
  try {
    return await db().$transaction(async (tx) => {
      const updated = await tx.memory.update({ where: { id: existing.id }, data: { content, tags, contentHash: hash } });
      if (contentChanged) await writeMemoryEntry(tx, { memoryId: existing.id, userId: options.userId, text: content, embedding: embedded });
      return updated;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("conflict", "You already have this memory.");
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") throw new AppError("not_found", "No such memory.");
    throw error;
  }
}

export async function deleteMemory(options: { userId: string; id: string }): Promise<Memory> {
  const memory = await getMemoryOrThrow(options);
  const { count } = await db().memory.deleteMany({ where: { id: memory.id, userId: options.userId } });
  if (!count) throw new AppError("not_found", "No such memory.");
  return memory;
}

export async function deleteAllMemories(options: { userId: string }): Promise<number> {
  const { count } = await db().memory.deleteMany({ where: { userId: options.userId } });
  return count;
}

export async function listMemories(options: { userId: string; limit?: number }): Promise<Memory[]> {
  return db().memory.findMany({ where: { userId: options.userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: options.limit ?? 200 });
}

export type TMemorySearchResult = { memories: { memory: Memory; score: number; similarity?: number; textRank?: number }[]; mode: TSearchMode };

export async function searchMemories(options: { userId: string; query: string; limit?: number; embedAttempts?: number; signal?: AbortSignal }): Promise<TMemorySearchResult> {
  const limit = options.limit ?? 10;
  const { hits, mode } = await hybridSearch({
    table: "memory_entries",
    filter: { userId: options.userId },
    query: options.query,
    limit,
    embeddings: embeddingSettings(),
    embedAttempts: options.embedAttempts,
    signal: options.signal,
  });
  if (!hits.length) return { memories: [], mode };
  const rows = await db().memory.findMany({ where: { userId: options.userId, id: { in: hits.map((hit) => hit.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    mode,
    memories: hits.flatMap((hit) => {
      const memory = byId.get(hit.id);
      return memory ? [{ memory, score: hit.score, similarity: hit.similarity, textRank: hit.textRank }] : [];
    }),
  };
}

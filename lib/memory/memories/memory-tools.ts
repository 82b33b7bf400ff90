import { z } from "zod";
import { defineTool, type TTool } from "@/lib/tools/registry";
import { db } from "@/lib/db/client";
import { deleteMemory, saveMemory, searchMemories } from "./memory-store";
import { toolErrorResult } from "@/lib/tools/tool-errors";

/**
 * memory_save, memory_search and memory_delete, always on the calling user's own memories.
 * memory_save reports a duplicate (same text, or a near-identical vector) instead of storing it
 * twice; memory_delete is a write, so the approval policy asks the owner first, and the card shows
 * the memory that would be deleted.
 */

const ORIGIN = { USER: "saved by the user", AGENT: "saved by the agent", EXTRACTION: "taken from a conversation" } as const;

const memorySave = defineTool({
  name: "memory_save",
  description:
    "Save a durable fact or preference about the user to their long-term memory, so it is recalled in future conversations (e.g. their tech stack, code style, projects, decisions). One self-contained fact per call, 1-3 sentences. Do not save secrets.",
  input: z.object({
    content: z.string().min(1).max(2_000).describe("The fact, complete enough to understand on its own later"),
    tags: z.array(z.string().min(1).max(40)).max(20).optional().describe('Optional tags, e.g. ["preference", "typescript"]'),
  }),
  risk: "write",
  preview: async ({ content, tags }) => ({ title: "Save to memory", detail: `${content}${tags?.length ? `\nTags: ${tags.join(", ")}` : ""}` }),
  async execute({ content, tags }, context) {
    try {
      const result = await saveMemory({ userId: context.userId, content, tags, origin: "AGENT", sessionId: context.sessionId });
      if (result.created) return `Saved memory ${result.memory.id}: ${result.memory.content}`;
      const how = result.duplicate.similarity === null ? "the same text" : `a near-identical memory (similarity ${result.duplicate.similarity.toFixed(3)})`;
      return `Not saved: this is already remembered as ${how} — memory ${result.memory.id}: ${result.memory.content}`;
    } catch (error) {
      return toolErrorResult(error);
    }
  },
});

const memorySearch = defineTool({
  name: "memory_search",
  description: "Search the user's long-term memory by meaning and keywords. Relevant memories are also recalled automatically before each message; use this to look for something specific.",
  input: z.object({
    query: z.string().min(1).max(2_000),
    top_k: z.int().min(1).max(50).optional().describe("Number of results (default 5)"),
  }),
  risk: "read",
  async execute({ query, top_k }, context) {
    try {
      const { memories, mode } = await searchMemories({ userId: context.userId, query, limit: top_k ?? 5, signal: context.signal });
      if (!memories.length) return `No memories found (${mode} search).`;
      const lines = memories.map(
        ({ memory, score }) =>
          `- [memory ${memory.id}] ${memory.content}${memory.tags.length ? ` (tags: ${memory.tags.join(", ")})` : ""} — ${ORIGIN[memory.origin]}, ${memory.createdAt.toISOString().slice(0, 10)}, score ${score.toFixed(4)}`,
      );
      return `${memories.length} memories (${mode} search):\n${lines.join("\n")}`;
    } catch (error) {
      return toolErrorResult(error);
    }
  },
});

const memoryDelete = defineTool({
  name: "memory_delete",
  description: "Delete one of the user's memories by its id (asks the user first).",
  input: z.object({ id: z.uuid().describe("The memory id, as shown by memory_search or in recalled memories") }),
  risk: "write",
  preview: async ({ id }, context) => {
    const memory = await db().memory.findFirst({ where: { id, userId: context.userId } });
    return { title: "Delete a memory", detail: memory ? memory.content : `No memory ${id} (nothing would be deleted).` };
  },
  async execute({ id }, context) {
    try {
      const memory = await deleteMemory({ userId: context.userId, id });
      return `Deleted memory ${memory.id}: ${memory.content}`;
    } catch (error) {
      return toolErrorResult(error);
    }
  },
});

export const memoryTools: readonly TTool[] = [memorySave, memorySearch, memoryDelete];

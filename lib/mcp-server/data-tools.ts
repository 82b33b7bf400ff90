import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { sessionLink } from "@/lib/openai-api/agent-completion";
import { searchKnowledge } from "@/lib/memory/knowledge/knowledge-search";
import { searchMemories, toMemoryView } from "@/lib/memory/memories/memory-store";
import { listSessions, toSessionSummary } from "@/lib/sessions/sessions";
import { toolCall, toolData } from "./tool-results";

/**
 * The read-only tools: the caller's sessions, memories and knowledge bases, through the same
 * functions as the web app's routes (GET /api/sessions, /api/memories?query=, /api/knowledge/search),
 * each scoped to the token's user: another user's rows are never found.
 */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const ZQuery = z.string().trim().min(1).max(2_000);

export function registerDataTools(server: McpServer, options: { userId: string; requestUrl: string; signal: AbortSignal }) {
  const { userId, signal } = options;

  server.registerTool(
    "list_sessions",
    {
      title: "List xclaw sessions",
      description: "The user's xclaw sessions (conversations), most recently active first: id (pass it to chat as session_id to continue one), title, status, where it started (web, api, channel, job…) and its link in the web chat.",
      inputSchema: { limit: z.int().min(1).max(200).optional().describe("How many sessions (default 20).") },
      outputSchema: {
        sessions: z.array(z.object({ id: z.string(), title: z.string(), status: z.string(), trigger: z.string(), updated_at: z.string(), link: z.string() })),
      },
      annotations: READ_ONLY,
    },
    ({ limit }) =>
      toolCall("list_sessions", async () => {
        // Multi-agent workers belong to their parent chat (the sidebar leaves them out too).
        const sessions = await listSessions({ userId, limit: limit ?? 20, excludeTriggers: ["agent"] });
        return toolData({
          sessions: sessions.map((session) => {
            const summary = toSessionSummary(session);
            return { id: summary.id, title: summary.title, status: summary.status, trigger: summary.trigger, updated_at: summary.updatedAt, link: sessionLink(summary.id, options.requestUrl) };
          }),
        });
      }),
  );

  server.registerTool(
    "search_memory",
    {
      title: "Search xclaw memory",
      description: "Search the user's long-term memory in xclaw (facts and preferences saved by them, by the agent or taken from conversations) by meaning and keywords; best matches first.",
      inputSchema: { query: ZQuery.describe("What to look for."), limit: z.int().min(1).max(50).optional().describe("How many memories (default 5).") },
      outputSchema: {
        memories: z.array(z.object({ id: z.string(), content: z.string(), tags: z.array(z.string()), origin: z.string(), created_at: z.string(), score: z.number().optional() })),
        mode: z.string(),
      },
      annotations: READ_ONLY,
    },
    ({ query, limit }) =>
      toolCall("search_memory", async () => {
        const { memories, mode } = await searchMemories({ userId, query, limit: limit ?? 5, signal });
        return toolData({
          memories: memories.map(({ memory, score }) => {
            const view = toMemoryView(memory, score);
            return { id: view.id, content: view.content, tags: view.tags, origin: view.origin, created_at: view.createdAt, score: view.score };
          }),
          mode,
        });
      }),
  );

  server.registerTool(
    "search_knowledge",
    {
      title: "Search xclaw knowledge bases",
      description: "Search the documents in the user's xclaw knowledge bases by meaning and keywords; each result is a passage with the document it comes from, best matches first.",
      inputSchema: {
        query: ZQuery.describe("What to look for."),
        limit: z.int().min(1).max(50).optional().describe("How many passages (default 5)."),
        knowledge_base: z.string().trim().min(1).max(100).optional().describe("Only this knowledge base (its name or id)."),
      },
      outputSchema: {
        results: z.array(z.object({ document_id: z.string(), filename: z.string(), knowledge_base_id: z.string(), chunk_index: z.number(), heading: z.string().nullable(), content: z.string(), score: z.number() })),
        mode: z.string(),
      },
      annotations: READ_ONLY,
    },
    ({ query, limit, knowledge_base: knowledgeBase }) =>
      toolCall("search_knowledge", async () => {
        const { results, mode } = await searchKnowledge({ userId, query, limit: limit ?? 5, knowledgeBase, signal });
        return toolData({
          results: results.map((result) => ({
            document_id: result.documentId,
            filename: result.filename,
            knowledge_base_id: result.knowledgeBaseId,
            chunk_index: result.chunkIndex,
            heading: result.heading,
            content: result.content,
            score: result.score,
          })),
          mode,
        });
      }),
  );
}

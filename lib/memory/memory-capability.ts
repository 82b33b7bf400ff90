import type { TBehaviourConfig } from "@/lib/config/behaviour";
import type { TTool } from "@/lib/tools/registry";
import { knowledgeTools } from "./knowledge/knowledge-tools";
import { memoryTools } from "./memories/memory-tools";
import { createRecallHook } from "./recall";

/**
 * The memory capability for lib/capabilities: the memory and knowledge-base tools, and the recall
 * hook that runs before every model call. The same tool objects for every run (their JSON Schemas
 * are cached per object).
 */
const tools: readonly TTool[] = [...memoryTools, ...knowledgeTools];

export function memoryCapability() {
  return {
    id: "memory",
    tools: () => tools,
    prepareStep: (context: { userId: string; sessionId: string; config: TBehaviourConfig }) =>
      context.sessionId ? createRecallHook({ userId: context.userId, sessionId: context.sessionId, config: context.config }) : undefined,
  };
}

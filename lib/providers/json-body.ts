import { LRUCache } from "lru-cache";
import type { TToolDefinition } from "./types";

/**
 * A model request's JSON body, built by the provider instead of its SDK. Found with heap snapshots
 * at 1,000 open chats (ARCHITECTURE.md, "Under load"): the SDKs serialize the request to a string
 * and hold it until the model answers, and one character outside Latin-1 anywhere in it (a skill's
 * description in Chinese, a user's message) makes V8 store all of it with two bytes per character.
 * So each waiting chat held a 40 KB string, nearly all of it the same tool definitions. A byte
 * buffer would not help: fetch copies a buffer body before sending it.
 *
 * Here the body is a Blob in two parts: the request's own parameters and messages, and the tool
 * list, serialized once per set of tool definitions (the registry hands out the same definition
 * objects run after run) and shared by every request that offers the same tools: a Blob made of
 * other Blobs refers to their bytes instead of copying them. fetch sends a Blob with its
 * Content-Length, one write per part, so the parts are few.
 */
type TToolList = { tools: readonly TToolDefinition[]; json: Blob };

/** Serializes a run's tool list once per set of definitions; `encode` is one tool's part of the request. */
export function toolListEncoder(encode: (tool: TToolDefinition) => unknown): (tools: readonly TToolDefinition[]) => Blob {
  const lists = new LRUCache<string, TToolList>({ max: 200 });
  return (tools) => {
    const key = tools.map((tool) => tool.name).join(",");
    const cached = lists.get(key);
    // The same names are not enough: a plugin update or a changed skill brings new definitions.
    if (cached && cached.tools.length === tools.length && cached.tools.every((tool, index) => tool === tools[index])) return cached.json;
    const json = new Blob([JSON.stringify(tools.map(encode))]);
    lists.set(key, { tools: [...tools], json });
    return json;
  };
}

/** `params` as JSON, with `key` set to the already serialized tool list when there is one. */
export function jsonBody(params: object, key: string, tools: Blob | undefined): Blob {
  const head = JSON.stringify(params);
  if (!tools) return new Blob([head]);
  return new Blob([`${head.slice(0, -1)}${head === "{}" ? "" : ","}${JSON.stringify(key)}:`, tools, "}"]);
}

import type { TToolDefinition } from "./types";

/**
 * A model request's JSON body, built by the provider instead of its SDK. Found with heap snapshots
 * at 1,000 open chats (ARCHITECTURE.md, "Under load"): the SDKs serialize the request to a string
 * and hold it until the model answers, and one character outside Latin-1 anywhere in it (a skill's
 * description in Chinese, a user's message) makes V8 store all of it with two bytes per character.
 * So each waiting chat held a 40 KB string, nearly all of it the same tool definitions. A byte
 * buffer would not help: fetch copies a buffer body before sending it.
 *
 * Here the body is a Blob: each tool's part is serialized once per definition (the registry hands
 * out the same definition objects run after run), and a Blob made of other Blobs refers to their
 * bytes instead of copying them. A waiting request holds its own parameters and messages, and
 * shares the tools with every other request. fetch sends a Blob with its Content-Length.
 */
const COMMA = new Blob([","]);
const CLOSE = new Blob(["]}"]);

/** Serializes each tool's part of a request once, for as long as its definition is in use. */
export function toolPartEncoder(encode: (tool: TToolDefinition) => unknown): (tool: TToolDefinition) => Blob {
  const parts = new WeakMap<TToolDefinition, Blob>();
  return (tool) => {
    let part = parts.get(tool);
    if (!part) {
      part = new Blob([JSON.stringify(encode(tool))]);
      parts.set(tool, part);
    }
    return part;
  };
}

/** `params` as JSON, with `key` set to the array of the already serialized `parts` when there are any. */
export function jsonBody(params: Record<string, unknown>, key: string, parts: readonly Blob[]): Blob {
  const head = JSON.stringify(params);
  if (!parts.length) return new Blob([head]);
  const pieces: (Blob | string)[] = [`${head.slice(0, -1)}${head === "{}" ? "" : ","}${JSON.stringify(key)}:[`];
  parts.forEach((part, index) => {
    if (index) pieces.push(COMMA);
    pieces.push(part);
  });
  pieces.push(CLOSE);
  return new Blob(pieces);
}

import { serverFetch } from "@/lib/net/server-fetch";
import { jsonBody } from "./json-body";
import type { TModelEvent, TToolCall, TUsage } from "./types";

/**
 * The request loop both providers share. What stays with each provider is its own: the request
 * parameters, typed as its SDK's streaming parameters, and the reading of its SDK's stream events.
 * What is the same is here: the SDK client's settings, the request sent through the SDK's own
 * `post` (so errors, headers and SSE parsing are the SDK's) with a body built from shared parts
 * (json-body.ts), and one turn assembled from the events: text as it arrives, tool calls from
 * their pieces, then usage and the finish reason. Retries, fallback, the idle timeout and aborts
 * are the provider chain's (provider-chain.ts), the same for every provider.
 */
export type TFinishReason = (TModelEvent & { type: "finish" })["reason"];

/** The settings both SDK clients take alike. */
export function sdkClientOptions(options: { apiKey?: string; baseUrl?: string }) {
  return {
    // Local servers such as Ollama need no key, but the SDKs insist on one.
    apiKey: options.apiKey || "not-needed",
    baseURL: options.baseUrl,
    // Retries and fallback follow one policy for every provider: the provider chain's.
    maxRetries: 0,
    timeout: 10 * 60 * 1000,
    fetch: serverFetch,
  };
}

/** What a provider's reader says about one event of its SDK's stream. */
export interface TTurnReader {
  text(text: string): void;
  /** A piece of the tool call at `index` (its place in the reply): id and name, or more of its JSON arguments. */
  toolCallPiece(index: number, piece: { id?: string; name?: string; json?: string }): void;
  /** Whether a piece has opened the tool call at `index` and it is not complete yet. */
  isToolCallOpen(index: number): boolean;
  /** The tool call at `index` is complete. Calls still open when the stream ends complete then, in order. */
  toolCallDone(index: number): void;
  /** Token counts; a later report replaces the counts it names. */
  usage(usage: Partial<TUsage>): void;
  /** The API's own word for why the reply ended ("tool_calls", "end_turn", …). */
  stopReason(reason: string | null | undefined): void;
}

/** The SDK client's request method (both SDKs have the same `post`). */
type TStreamingClient = {
  post(path: string, options: { body: Blob; headers: Record<string, string>; stream: true; signal?: AbortSignal }): PromiseLike<unknown>;
};

/** Tool arguments as the model wrote them: parsed JSON, or the text itself when it is not JSON. */
function parseArguments(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    // Returned to the loop as-is; argument validation tells the model what was wrong.
    return json;
  }
}

class Turn implements TTurnReader {
  private readonly ready: TModelEvent[] = [];
  private readonly openCalls = new Map<number, { id: string; name: string; json: string }>();
  private calledTools = false;
  private counted: TUsage | undefined;
  private reason: string | undefined;

  text(text: string): void {
    if (text) this.ready.push({ type: "text-delta", text });
  }

  toolCallPiece(index: number, piece: { id?: string; name?: string; json?: string }): void {
    const call = this.openCalls.get(index) ?? { id: "", name: "", json: "" };
    if (piece.id) call.id = piece.id;
    if (piece.name) call.name += piece.name;
    if (piece.json) call.json += piece.json;
    this.openCalls.set(index, call);
  }

  isToolCallOpen(index: number): boolean {
    return this.openCalls.has(index);
  }

  toolCallDone(index: number): void {
    const open = this.openCalls.get(index);
    if (!open) return;
    this.openCalls.delete(index);
    this.calledTools = true;
    const call: TToolCall = { id: open.id || `call_${index}`, name: open.name, arguments: parseArguments(open.json) };
    this.ready.push({ type: "tool-call", call });
  }

  usage(usage: Partial<TUsage>): void {
    this.counted = { inputTokens: 0, outputTokens: 0, ...this.counted, ...usage };
  }

  stopReason(reason: string | null | undefined): void {
    if (reason) this.reason = reason;
  }

  /** The events the last stream event produced. */
  take(): TModelEvent[] {
    return this.ready.splice(0);
  }

  end(finishReason: (stopReason: string | undefined, calledTools: boolean) => TFinishReason): TModelEvent[] {
    for (const index of [...this.openCalls.keys()].sort((a, b) => a - b)) this.toolCallDone(index);
    if (this.counted) this.ready.push({ type: "usage", usage: this.counted });
    this.ready.push({ type: "finish", reason: finishReason(this.reason, this.calledTools) });
    return this.take();
  }
}

/**
 * Sends one streaming request and yields the turn: `read` handles each event of the SDK's stream
 * (`TEvent`, the SDK's own event type), `finishReason` maps the API's stop reason at the end.
 */
export async function* streamTurn<TEvent>(request: {
  client: TStreamingClient;
  path: string;
  /** The SDK's streaming parameters without the tools, which come serialized (json-body.ts). */
  params: object;
  tools: Blob | undefined;
  signal?: AbortSignal;
  read: (event: TEvent, turn: TTurnReader) => void;
  finishReason: (stopReason: string | undefined, calledTools: boolean) => TFinishReason;
}): AsyncIterable<TModelEvent> {
  // What the SDK's create() does, with the body built from shared parts.
  const stream = (await request.client.post(request.path, {
    body: jsonBody(request.params, "tools", request.tools),
    headers: { "content-type": "application/json" },
    stream: true,
    signal: request.signal,
  })) as AsyncIterable<TEvent>;
  const turn = new Turn();
  for await (const event of stream) {
    request.read(event, turn);
    yield* turn.take();
  }
  yield* turn.end(request.finishReason);
}

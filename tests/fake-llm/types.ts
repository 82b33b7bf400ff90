/** Which real API a recorded request was aimed at. */
export type TFakeApi = "openai" | "anthropic" | "openai-embeddings";

export type TRecordedRequest = {
  api: TFakeApi;
  path: string;
  /** Lower-cased names; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  // `any` on purpose: tests read arbitrary request fields (body.messages[0].content …) and a
  // precise type would force a cast in every assertion without catching anything.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  receivedAt: number;
};

export type TFakeToolCall = {
  id?: string;
  name: string;
  /** A string is sent verbatim, so a test can hand the app broken or partial JSON. */
  arguments: Record<string, unknown> | string;
};

export type TFakeReply = {
  /** Assistant text; a streamed reply sends it as several deltas. */
  text?: string;
  /** How many deltas a streamed `text` is split into (default: about one per 8 characters, at least 2). */
  chunks?: number;
  toolCalls?: TFakeToolCall[];
  /** Default: a rough estimate from the request and reply sizes. Cache figures are part of inputTokens. */
  usage?: TFakeUsage;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Wait between stream events. */
  chunkDelayMs?: number;
  /** Answer with this HTTP error status and an API-shaped error body instead of a completion. */
  status?: number;
  errorMessage?: string;
  /** Extra response headers, e.g. {"retry-after": "1"}. */
  headers?: Record<string, string>;
  /** Accept the request and never answer, until the client gives up or close() is called. */
  hang?: boolean;
  /**
   * Send the headers and this many stream events, then destroy the socket. A non-streaming
   * request gets the headers and part of the JSON body before the socket is destroyed.
   */
  breakAfterChunks?: number;
  /** Overrides finish_reason (OpenAI) or stop_reason (Anthropic). */
  stopReason?: string;
};

export type TFakeScript = TFakeReply[] | ((request: TRecordedRequest) => TFakeReply | Promise<TFakeReply>);

export type TFakeLlm = {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** `${url}/v1`: the openai SDK's baseURL. */
  openaiBaseUrl: string;
  /** `${url}`: the @anthropic-ai/sdk baseURL (the SDK appends /v1/messages itself). */
  anthropicBaseUrl: string;
  /**
   * Replaces the script. An array is consumed in order, one reply per chat/messages request
   * (both APIs share the queue); a function is asked for every such request.
   */
  script(replies: TFakeScript): void;
  /** Every chat, messages and embeddings request, in arrival order. */
  requests: TRecordedRequest[];
  /** Clears the script, the request log and the id counters. */
  reset(): void;
  /** Closes the server and destroys open (also hung) sockets. */
  close(): Promise<void>;
};

export type TFakeUsage = { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheCreationTokens?: number };

/** A reply after defaults are applied: ids allocated, arguments serialised, usage known. */
export type TResolvedReply = {
  text: string;
  textPieces: string[];
  toolCalls: { id: string; name: string; argumentsJson: string; argumentPieces: string[] }[];
  usage: TFakeUsage;
  stopReason: string | undefined;
  responseId: string;
  model: string;
  /** Seconds since the epoch, as both APIs report `created`. */
  created: number;
};

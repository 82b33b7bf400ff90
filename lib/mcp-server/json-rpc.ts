import { z } from "zod";

/**
 * The JSON-RPC 2.0 messages of MCP's Streamable HTTP transport, as far as a stateless server
 * needs them: one message per POST (batches left the protocol in 2025-06-18), requests answered
 * with one response, notifications and responses acknowledged with 202 and no body.
 */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export const ZJsonRpcId = z.union([z.string(), z.int()]);
export type TJsonRpcId = z.infer<typeof ZJsonRpcId>;

export const ZJsonRpcMessage = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: ZJsonRpcId.optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
export type TJsonRpcMessage = z.infer<typeof ZJsonRpcMessage>;

export function rpcResult(id: TJsonRpcId, result: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id, result });
}

export function rpcError(id: TJsonRpcId | null, code: number, message: string, status = 200): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
}

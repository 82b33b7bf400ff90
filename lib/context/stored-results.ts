import { db } from "@/lib/db/client";
import type { TContentPart } from "@/lib/providers/types";
import { decodeStep } from "@/lib/sessions/step-codecs";

/**
 * A tool result as its TOOL_CALL step keeps it, found by the call's id within one session of one
 * user: the recall tools read nothing but the calling session's own steps. Tool-call ids are made
 * unique per session by the loop; should an old session repeat one, the newest call wins (the one
 * the model is most likely looking at).
 */
export type TStoredResult = { stepId: string; toolName: string; arguments: unknown; content: TContentPart[]; isError: boolean };

export async function findStoredResult(options: { userId: string; sessionId: string; callId: string }): Promise<TStoredResult | undefined> {
  const step = await db().step.findFirst({
    where: { sessionId: options.sessionId, userId: options.userId, type: "TOOL_CALL", input: { path: ["toolCallId"], equals: options.callId } },
    orderBy: { seq: "desc" },
  });
  if (!step) return undefined;
  const decoded = decodeStep(step);
  if (decoded.kind !== "tool" || !decoded.output) return undefined;
  return { stepId: step.id, toolName: decoded.input.name, arguments: decoded.input.arguments, content: decoded.output.content, isError: decoded.output.isError };
}

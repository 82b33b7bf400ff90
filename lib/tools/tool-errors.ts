import { AppError } from "@/lib/errors";
import type { TToolResult } from "./registry";

/**
 * An AppError a tool meets (a bad path, a refused request, a missing row) goes back to the model
 * as an error observation carrying its message, so the model can correct itself; anything else is
 * a bug and is thrown to the tool phase, which records it on the step.
 */
export function toolErrorResult(error: unknown): TToolResult {
  if (error instanceof AppError) return { content: [{ type: "text", text: error.message }], isError: true };
  throw error;
}

/** Runs a tool's body and turns the AppErrors it throws into error observations. */
export async function withToolErrors(action: () => Promise<TToolResult | string>): Promise<TToolResult | string> {
  try {
    return await action();
  } catch (error) {
    return toolErrorResult(error);
  }
}

import { z } from "zod";
import type { TContentPart, TToolDefinition } from "@/lib/providers/types";

/**
 * One registration exposes a tool everywhere: to every provider (JSON Schema generated from the
 * zod input schema), to the text tool protocol, and to the system prompt. Risk levels feed the
 * approval policy (read tools run freely; the others will ask, see the approvals issue).
 */
export type TToolRisk = "read" | "write" | "execute" | "external";

export type TToolContext = { userId: string; sessionId: string; signal: AbortSignal };

export type TToolResult = { content: TContentPart[]; isError?: boolean };

/** What an approval card shows before the call runs. */
export type TToolPreview = { title: string; command?: string; path?: string; diff?: string; detail?: string };

export type TTool<TInput = unknown> = {
  name: string;
  description: string;
  input: z.ZodType<TInput>;
  risk: TToolRisk;
  execute: (input: TInput, context: TToolContext) => Promise<TToolResult | string>;
  /** Describes the call for a person deciding whether to approve it; defaults to the arguments. */
  preview?: (input: TInput, context: TToolContext) => Promise<TToolPreview>;
  /**
   * The risk of one particular call when it depends on the arguments (a click on a "Pay" button is
   * riskier than a click on a link); `risk` is used when this is absent.
   */
  riskOf?: (input: TInput) => TToolRisk;
  /** Calls of this tool act on shared state (one browser page) and must never run in parallel. */
  sequential?: boolean;
};

export function defineTool<TSchema extends z.ZodType>(tool: {
  name: string;
  description: string;
  input: TSchema;
  risk: TToolRisk;
  execute: (input: z.infer<TSchema>, context: TToolContext) => Promise<TToolResult | string>;
  preview?: (input: z.infer<TSchema>, context: TToolContext) => Promise<TToolPreview>;
  riskOf?: (input: z.infer<TSchema>) => TToolRisk;
  sequential?: boolean;
}): TTool {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(tool.name)) throw new Error(`tool name "${tool.name}" must be snake_case ASCII`);
  return tool as unknown as TTool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, TTool>();

  register(tool: TTool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    this.cachedDefinitions = undefined;
    return this;
  }

  get(name: string): TTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): TTool[] {
    return [...this.tools.values()];
  }

  private cachedDefinitions: TToolDefinition[] | undefined;

  definitions(): TToolDefinition[] {
    this.cachedDefinitions ??= this.list().map((tool) => {
      const schema = z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
      delete schema.$schema;
      return { name: tool.name, description: tool.description, inputSchema: schema };
    });
    return this.cachedDefinitions;
  }
}

/** The risk of one call: the tool's own judgement of these arguments, else its declared risk. */
export function riskOfCall(tool: TTool, input: unknown): TToolRisk {
  if (!tool.riskOf) return tool.risk;
  const parsed = tool.input.safeParse(input ?? {});
  // Arguments that do not parse will not run; the declared risk is the honest answer for them.
  return parsed.success ? tool.riskOf(parsed.data) : tool.risk;
}

import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { TContentPart, TToolDefinition } from "@/lib/providers/types";
import type { TWorkspaceScope } from "@/lib/sandbox/types";

/**
 * One registration exposes a tool everywhere: to every provider (JSON Schema generated from the
 * zod input schema), to the text tool protocol, and to the system prompt. Risk levels feed the
 * one approval policy (lib/approvals/policy.ts).
 */
export type TToolRisk = "read" | "write" | "execute" | "external";

/** A progress update from a running tool; the chat shows the latest one on the tool's card. */
export type TToolProgress = {
  text: string;
  fraction?: number;
  /** Structured state for a card that shows more than a line (the workers of a debate); JSON. */
  detail?: unknown;
};

/** What a tool may ask of the run that called it: a child run (a sub-agent) working on a task. */
export type TChildRunRequest = {
  task: string;
  title?: string;
  /** Added to the child's system prompt (e.g. an agent profile's role). */
  instructions?: string;
  maxIterations?: number;
  /** Tool names the child may use; all of the parent's tools when absent. */
  allowedTools?: string[];
  timeoutMs?: number;
};

export type TChildRunResult = {
  sessionId: string;
  status: "completed" | "max-iterations" | "paused" | "failed" | "stopped";
  text: string;
  error?: string;
};

export type TToolContext = {
  userId: string;
  sessionId: string;
  /** The TOOL_CALL step of this call; empty while previewing a call that has no step yet. */
  stepId: string;
  /**
   * Sites (origins) the session's owner allowed data to go to. Tools that send data elsewhere (the
   * browser) must not do so without the call having been approved.
   */
  allowedOrigins?: readonly string[];
  signal: AbortSignal;
  /** Streams a progress update to this call's card (and to anyone following the run). */
  progress: (update: TToolProgress) => void;
  /** Starts a child run and waits for its result; absent where runs cannot nest any deeper. */
  startChildRun?: (request: TChildRunRequest) => Promise<TChildRunResult>;
  /** The run this call belongs to (per-run limits, such as delegations per run). */
  runId?: string;
  /** How many parent runs this run has (0 for a chat, 1 for its workers). */
  depth?: number;
  /** Whether calls needing approval pause for the owner ("ask") or are denied (unattended runs). */
  approvals?: "ask" | "deny";
  /** The folders of the owner's workspace this run may see (a worker's); the whole workspace when absent. */
  workspace?: TWorkspaceScope;
};

export type TToolResult = { content: TContentPart[]; isError?: boolean };

/** What a tool's risk judgement may look at besides the arguments: what the session allows. */
export type TRiskContext = { allowedOrigins: readonly string[] };

/**
 * What an approval card shows before the call runs. `origin`: the site the call would send data
 * to; the card then offers "always allow this site in this chat".
 */
export type TToolPreview = {
  title: string;
  command?: string;
  path?: string;
  diff?: string;
  detail?: string;
  origin?: string;
  /**
   * Set when the call can never succeed whatever the owner decides (an address the SSRF guard
   * refuses): the call is answered with this text at once, and no approval card is shown.
   */
  refused?: string;
};

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
   * riskier than a click on a link) or on what the session allows (a site not allowed yet);
   * `risk` is used when this is absent.
   */
  riskOf?: (input: TInput, context: TRiskContext) => TToolRisk;
  /** Calls of this tool act on shared state (one browser page) and must never run in parallel. */
  sequential?: boolean;
};

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export function defineTool<TSchema extends z.ZodType>(tool: {
  name: string;
  description: string;
  input: TSchema;
  risk: TToolRisk;
  execute: (input: z.infer<TSchema>, context: TToolContext) => Promise<TToolResult | string>;
  preview?: (input: z.infer<TSchema>, context: TToolContext) => Promise<TToolPreview>;
  riskOf?: (input: z.infer<TSchema>, context: TRiskContext) => TToolRisk;
  sequential?: boolean;
}): TTool {
  if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name "${tool.name}" must be snake_case ASCII`);
  return tool as unknown as TTool;
}

/**
 * JSON Schemas are built once per tool object, not per run: tool providers hand out the same
 * objects run after run, and building a schema is the most expensive thing about a registry.
 */
const definitionCache = new WeakMap<TTool, TToolDefinition>();

export function toolDefinition(tool: TTool): TToolDefinition {
  let definition = definitionCache.get(tool);
  if (!definition) {
    const schema = z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    definition = { name: tool.name, description: tool.description, inputSchema: schema };
    definitionCache.set(tool, definition);
  }
  return definition;
}

/** The tools of one run. `source` names where a tool came from, for the duplicate-name error. */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: TTool; source: string }>();
  private cachedDefinitions: TToolDefinition[] | undefined;

  /** Refuses a second tool with the same name with an error that names both sources. */
  register(tool: TTool, source = "built-in"): this {
    const existing = this.tools.get(tool.name);
    if (existing) {
      throw new AppError("conflict", `The tool name "${tool.name}" from ${source} is already taken by ${existing.source}; the second one was not registered.`);
    }
    this.tools.set(tool.name, { tool, source });
    this.cachedDefinitions = undefined;
    return this;
  }

  get(name: string): TTool | undefined {
    return this.tools.get(name)?.tool;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): TTool[] {
    return [...this.tools.values()].map((entry) => entry.tool);
  }

  /** A registry with only the named tools (a run's allowed list); unknown names are ignored. */
  only(names: readonly string[]): ToolRegistry {
    const allowed = new Set(names);
    const narrowed = new ToolRegistry();
    for (const [name, entry] of this.tools) if (allowed.has(name)) narrowed.register(entry.tool, entry.source);
    return narrowed;
  }

  definitions(): TToolDefinition[] {
    this.cachedDefinitions ??= this.list().map(toolDefinition);
    return this.cachedDefinitions;
  }
}

/** The risk of one call: the tool's own judgement of these arguments, else its declared risk. */
export function riskOfCall(tool: TTool, input: unknown, context: TRiskContext = { allowedOrigins: [] }): TToolRisk {
  if (!tool.riskOf) return tool.risk;
  const parsed = tool.input.safeParse(input ?? {});
  // Arguments that do not parse will not run; the declared risk is the honest answer for them.
  return parsed.success ? tool.riskOf(parsed.data, context) : tool.risk;
}

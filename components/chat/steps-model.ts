import type { TStepRow } from "./types";

/**
 * The steps panel shows the trace turn by turn: each person's message (or command) starts a turn,
 * and the model calls, tool calls and notes after it belong to it. Steps before the first message
 * (a job's prompt is a message too) form a turn of their own.
 */
export type TStepTurn = { key: string; label: string; steps: TStepRow[] };

function describeStart(step: TStepRow): string {
  const input = step.input;
  const text = input && typeof input === "object" && "text" in input && typeof input.text === "string" ? input.text : undefined;
  return text ? text.replace(/\s+/g, " ").trim() : step.type === "command" ? "Command" : "Message";
}

export function groupStepsByTurn(steps: TStepRow[]): TStepTurn[] {
  const turns: TStepTurn[] = [];
  for (const step of steps) {
    if (step.type === "user_input" || step.type === "command" || !turns.length) {
      const starts = step.type === "user_input" || step.type === "command";
      turns.push({ key: step.key, label: starts ? describeStart(step) : "Before the first message", steps: [step] });
    } else turns.at(-1)!.steps.push(step);
  }
  return turns;
}

/**
 * What the context layers saved before a model call (lib/context records it on the step's
 * output), as one line for the panel: "context −12,345 tokens (offload 10,000, masking 2,345)".
 */
export function contextSavings(step: TStepRow): string | null {
  const output = step.output;
  if (step.type !== "model_call" || !output || typeof output !== "object" || !("context" in output)) return null;
  const context = output.context;
  if (!context || typeof context !== "object") return null;
  const layers = Object.entries(context as Record<string, unknown>).flatMap(([layer, figures]) => {
    const saved = figures && typeof figures === "object" && "tokensSaved" in figures ? figures.tokensSaved : undefined;
    return typeof saved === "number" && saved > 0 ? [[layer, saved] as const] : [];
  });
  if (!layers.length) return null;
  const total = layers.reduce((sum, [, saved]) => sum + saved, 0);
  return `context −${total.toLocaleString("en-US")} tokens (${layers.map(([layer, saved]) => `${layer} ${saved.toLocaleString("en-US")}`).join(", ")})`;
}

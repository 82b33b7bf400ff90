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

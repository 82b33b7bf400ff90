import type { TStepRow } from "../../../lib/wire/chat";
import { createApiClient } from "../api-client";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { resolveLogin } from "../login-store";
import { formatTable } from "../table";
import { oneLine } from "../terminal-style";
import { durationText } from "../tool-card-text";


function what(step: TStepRow): string {
  if (step.type === "tool_call") return `tool ${step.name}`;
  if (step.type === "model_call") return `model${step.model ? ` ${step.model}` : ""}`;
  if (step.type === "user_input") return "user";
  return step.name;
}

/** `xclaw steps <id>`: a session's trace, one row per step (GET /api/sessions/:id/steps), as /steps shows it in the chat. */
export async function steps(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArguments(args, { json: { type: "boolean" } }, { min: 1, max: 1 });
  const client = createApiClient(await resolveLogin());
  const { steps: rows } = await client.getJson<{ steps: TStepRow[] }>(`/api/sessions/${encodeURIComponent(positionals[0]!)}/steps`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT_CODES.success;
  }
  if (!rows.length) {
    process.stdout.write("No steps yet.\n");
    return EXIT_CODES.success;
  }
  const table = rows.map((step) => {
    const workers = step.childSessions?.map((child) => `${child.agent} ${child.sessionId} ${child.status}`).join(", ");
    return [
      step.key,
      oneLine(`${what(step)}${workers ? ` → ${workers}` : ""}`, 80),
      step.status,
      step.durationMs === null ? "" : durationText(step.durationMs),
      step.inputTokens === null ? "" : `${step.inputTokens}→${step.outputTokens ?? 0}`,
      step.error ? oneLine(step.error, 80) : "",
    ];
  });
  process.stdout.write(`${formatTable(["step", "what", "status", "took", "tokens", "error"], table)}\n`);
  return EXIT_CODES.success;
}

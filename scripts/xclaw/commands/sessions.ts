import type { TSessionSummary } from "../../../lib/wire/chat";
import { createApiClient } from "../api-client";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { resolveLogin } from "../login-store";
import { formatTable, localTime } from "../table";
import { oneLine } from "../terminal-style";


/** `xclaw sessions`: the caller's sessions, newest first (GET /api/sessions). */
export async function sessions(args: string[]): Promise<number> {
  const { values } = parseCommandArguments(args, { json: { type: "boolean" } }, { min: 0, max: 0 });
  const client = createApiClient(await resolveLogin());
  const { sessions: list } = await client.getJson<{ sessions: TSessionSummary[] }>("/api/sessions");
  if (values.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT_CODES.success;
  }
  if (!list.length) {
    process.stdout.write("No sessions yet. Start one with: xclaw chat\n");
    return EXIT_CODES.success;
  }
  const rows = list.map((session) => [session.id, session.status, session.trigger, localTime(session.updatedAt), oneLine(session.title, 60)]);
  process.stdout.write(`${formatTable(["id", "status", "trigger", "updated", "title"], rows)}\n`);
  return EXIT_CODES.success;
}

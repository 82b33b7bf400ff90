import type { TChronosJobView } from "../../../lib/wire/chronos";
import { createApiClient } from "../api-client";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { resolveLogin } from "../login-store";
import { formatTable, localTime } from "../table";
import { oneLine } from "../terminal-style";


function state(job: TChronosJobView): string {
  if (job.pausedByAdmin) return "paused by admin";
  if (!job.enabled) return "off";
  return job.running ? "running" : "on";
}

/** `xclaw jobs`: the caller's scheduled jobs (GET /api/jobs). */
export async function jobs(args: string[]): Promise<number> {
  const { values } = parseCommandArguments(args, { json: { type: "boolean" } }, { min: 0, max: 0 });
  const client = createApiClient(await resolveLogin());
  const { jobs: list } = await client.getJson<{ jobs: TChronosJobView[] }>("/api/jobs");
  if (values.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT_CODES.success;
  }
  if (!list.length) {
    process.stdout.write(`No scheduled jobs. Create them on ${client.link("/jobs")}.\n`);
    return EXIT_CODES.success;
  }
  const rows = list.map((job) => [job.id, state(job), oneLine(job.scheduleText, 40), localTime(job.nextRunAt), job.lastStatus ?? "—", oneLine(job.name, 50)]);
  process.stdout.write(`${formatTable(["id", "state", "schedule", "next run", "last", "name"], rows)}\n`);
  return EXIT_CODES.success;
}

import path from "node:path";
import { createBackup } from "../../../lib/operations/backup";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { loadServerEnvironment } from "./server-environment";

/** `npm run xclaw -- backup <file>`: one archive of the database and the data directory. */
export async function backup(args: string[]): Promise<number> {
  const { positionals } = parseCommandArguments(args, {}, { min: 1, max: 1 });
  const variables = loadServerEnvironment();
  const file = path.resolve(positionals[0]!);
  const manifest = await createBackup({ file, databaseUrl: variables.DATABASE_URL, dataDirectory: variables.XCLAW_DATA_DIR, onProgress: (line) => process.stderr.write(`${line}…\n`) });
  const megabytes = ((manifest.database.member.bytes + manifest.data.bytes) / 1_048_576).toFixed(1);
  process.stdout.write(`Backup written to ${file} (${manifest.database.kind} database and data directory, ${megabytes} MiB, ${manifest.database.migrations.length} migrations).\n`);
  return EXIT_CODES.success;
}

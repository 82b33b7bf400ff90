import path from "node:path";
import { restoreBackup } from "../../../lib/operations/restore";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { loadServerEnvironment } from "./server-environment";

/** `npm run xclaw -- restore <file>`: into the empty database DATABASE_URL names and the data directory (refuses non-empty ones). */
export async function restore(args: string[]): Promise<number> {
  const { positionals } = parseCommandArguments(args, {}, { min: 1, max: 1 });
  const variables = loadServerEnvironment();
  const file = path.resolve(positionals[0]!);
  const manifest = await restoreBackup({ file, databaseUrl: variables.DATABASE_URL, dataDirectory: variables.XCLAW_DATA_DIR, onProgress: (line) => process.stderr.write(`${line}…\n`) });
  process.stdout.write(
    `Restored the backup of ${manifest.createdAt} (xclaw ${manifest.appVersion}). Start the app with the NEXTAUTH_SECRET it had: the backup does not contain it, and stored channel secrets need it.\n`,
  );
  return EXIT_CODES.success;
}

import { SEALED_COLUMNS } from "../../../lib/app/sealed-columns";
import { resealStoredSecrets } from "../../../lib/operations/rotate-secret";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { loadServerEnvironment } from "./server-environment";

/**
 * `npm run xclaw -- rotate-secret`, the middle step of a rotation without downtime
 * (docs/operations.md): with the new NEXTAUTH_SECRET and the old one in NEXTAUTH_SECRET_PREVIOUS
 * (every app process restarted with both), re-seal every stored secret under the new one; then
 * NEXTAUTH_SECRET_PREVIOUS can go.
 */
export async function rotateSecret(args: string[]): Promise<number> {
  parseCommandArguments(args, {}, { min: 0, max: 0 });
  const variables = loadServerEnvironment();
  if (!variables.NEXTAUTH_SECRET) {
    process.stderr.write("xclaw rotate-secret: NEXTAUTH_SECRET (the new secret) is not set.\n");
    return EXIT_CODES.failed;
  }
  if (!variables.DATABASE_URL) {
    process.stderr.write("xclaw rotate-secret: DATABASE_URL is not set (with the embedded database, run it with the URL the launcher prints while the app runs).\n");
    return EXIT_CODES.failed;
  }
  const results = await resealStoredSecrets({ databaseUrl: variables.DATABASE_URL, columns: SEALED_COLUMNS });
  for (const result of results) {
    process.stdout.write(`${result.column}: ${result.resealed} re-sealed, ${result.current} already current${result.unreadable ? `, ${result.unreadable} unreadable with either secret (their owners must enter them again)` : ""}\n`);
  }
  const unreadable = results.reduce((sum, result) => sum + result.unreadable, 0);
  process.stdout.write(variables.NEXTAUTH_SECRET_PREVIOUS ? "Done. Remove NEXTAUTH_SECRET_PREVIOUS and restart the app processes.\n" : "Done. (NEXTAUTH_SECRET_PREVIOUS is not set, so only values sealed with the current secret could be read.)\n");
  return unreadable ? EXIT_CODES.failed : EXIT_CODES.success;
}

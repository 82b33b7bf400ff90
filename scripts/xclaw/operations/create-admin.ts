import { publicOrigin } from "../../../lib/config/environment";
import { disconnectDatabase } from "../../../lib/db/client";
import { createAdminAccountLink } from "../../../lib/users/account-links";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { loadServerEnvironment } from "./server-environment";

/**
 * `npm run xclaw -- create-admin <email>`: an admin account (new, or an existing one promoted) and
 * a one-time link to choose its password. Needs the database the app uses (DATABASE_URL; the
 * embedded one only while the app runs, through the URL the launcher prints).
 */
export async function createAdmin(args: string[]): Promise<number> {
  const { positionals } = parseCommandArguments(args, {}, { min: 1, max: 1 });
  const variables = loadServerEnvironment();
  if (!variables.DATABASE_URL) {
    process.stderr.write("xclaw create-admin: DATABASE_URL is not set. With the embedded database, sign up in the browser instead: the first account becomes the admin.\n");
    return EXIT_CODES.failed;
  }
  try {
    const { user, created, kind, link } = await createAdminAccountLink(positionals[0]!);
    const origin = publicOrigin() ?? `http://localhost:${variables.PORT}`;
    process.stdout.write(`${created ? "Created the admin" : "Made an admin of"} ${user.email}.\n`);
    process.stdout.write(`One-time link to ${kind === "invite" ? "choose a password" : "set a new password"} (expires ${link.expiresAt.toISOString()}):\n${origin}${link.path}\n`);
    return EXIT_CODES.success;
  } finally {
    await disconnectDatabase();
  }
}

import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { forgetLogin, loginFile, readStoredLogin } from "../login-store";


/**
 * `xclaw logout`: forgets the stored login. The token is not revoked: the person made it on the
 * web and may use it elsewhere (a CI secret), so they revoke it there.
 */
export async function logout(args: string[]): Promise<number> {
  parseCommandArguments(args, {}, { min: 0, max: 0 });
  const stored = await readStoredLogin().catch(() => undefined);
  if (!(await forgetLogin())) {
    process.stdout.write("Not logged in: nothing to forget.\n");
    return EXIT_CODES.success;
  }
  process.stdout.write(
    `Logged out${stored ? ` of ${stored.url}` : ""}: ${loginFile()} is removed. The token itself works until you revoke it on Settings → API tokens.\n`,
  );
  return EXIT_CODES.success;
}

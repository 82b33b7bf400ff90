import { AppError, isAppError } from "../../../lib/errors";
import { createApiClient } from "../api-client";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { askSecret } from "../line-input";
import { serverOrigin, storeLogin } from "../login-store";
import { painterFor } from "../terminal-style";


const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * `xclaw login <url>`: takes a personal API token (Settings → API tokens; asked for, or
 * `--token`), checks it with GET /api/me, and stores the address and the token for the other
 * commands (login-store.ts). A refused token is never stored.
 */
export async function login(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArguments(args, { token: { type: "string" } }, { min: 1, max: 1 });
  const url = serverOrigin(positionals[0]!);
  const paint = painterFor(process.stderr);
  if (url.startsWith("http:") && !LOOPBACK.has(new URL(url).hostname)) {
    process.stderr.write(paint("yellow", `Warning: ${url} is plain HTTP, so the token crosses the network unencrypted. Use https:// if the server has it.\n`));
  }
  const token = (values.token ?? (await askSecret(`API token for ${url} (create one on ${url}/settings, API tokens): `)))?.trim();
  if (!token) throw new AppError("bad_request", "No token given: nothing was stored.");
  const client = createApiClient({ url, token });
  let me: { email?: unknown };
  try {
    me = await client.getJson<{ email?: unknown }>("/api/me");
  } catch (error) {
    if (isAppError(error) && error.code === "unauthorized") throw new AppError("unauthorized", `${url} refused this token, so nothing was stored. Copy it again from Settings → API tokens (it is shown once, when created).`);
    throw error;
  }
  if (typeof me?.email !== "string") throw new AppError("bad_request", `${url}/api/me did not answer as an xclaw server does: nothing was stored.`);
  const file = await storeLogin({ url, token });
  process.stdout.write(`Logged in to ${url} as ${me.email}. The token is stored in ${file}, readable only by you.\n`);
  const providers = await client.getJson<{ configured?: unknown }>("/api/providers").catch(() => undefined);
  if (providers && providers.configured === false) {
    process.stderr.write(paint("yellow", "Note: this server has no model configured yet, so chat and run will be refused until an administrator sets one.\n"));
  }
  return EXIT_CODES.success;
}

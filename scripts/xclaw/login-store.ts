import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../../lib/errors";

/**
 * Where `xclaw login` keeps the server's address and the personal API token:
 * `$XDG_CONFIG_HOME/xclaw/config.json` (default `~/.config/xclaw/config.json`). The token is a
 * password, so the file is written 0600 in a 0700 directory — through a new file renamed into
 * place, because writing over an existing file would keep whatever mode it had.
 */
export const ZStoredLogin = z.object({ url: z.string(), token: z.string().min(1) });
export type TLogin = z.infer<typeof ZStoredLogin>;

export function loginDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "xclaw");
}

export function loginFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(loginDirectory(env), "config.json");
}

/** A server address as typed ("https://xclaw.example.com/", a link to a chat …) reduced to its origin. */
export function serverOrigin(address: string): string {
  const trimmed = address.trim();
  if (!/^https?:\/\//i.test(trimmed)) throw new AppError("bad_request", `Give the server's address with http:// or https://, e.g. https://xclaw.example.com (got "${trimmed}").`);
  try {
    return new URL(trimmed).origin;
  } catch {
    throw new AppError("bad_request", `"${trimmed}" is not a web address.`);
  }
}

export async function readStoredLogin(env: NodeJS.ProcessEnv = process.env): Promise<TLogin | undefined> {
  const file = loginFile(env);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new AppError("internal", `Cannot read ${file}: ${error.message}`);
  });
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", `${file} is not valid JSON. Log in again (xclaw login <url>) to rewrite it.`);
  }
  const login = ZStoredLogin.safeParse(parsed);
  if (!login.success) throw new AppError("bad_request", `${file} does not hold a login. Log in again (xclaw login <url>) to rewrite it.`);
  // Like ssh with a private key: say so when others could read the token (the file is still used).
  const mode = (await stat(file)).mode & 0o777;
  if (mode & 0o077) process.stderr.write(`xclaw: warning: ${file} can be read by other users (mode ${mode.toString(8)}); run: chmod 600 ${file}\n`);
  return login.data;
}

export async function storeLogin(login: TLogin, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const directory = loginDirectory(env);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing directory as it was; this one holds only our token.
  await chmod(directory, 0o700);
  const file = loginFile(env);
  const temporary = path.join(directory, `.config.json.${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return file;
}

/** Forgets the stored login; false when there was none. */
export async function forgetLogin(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const file = loginFile(env);
  const existed = await stat(file).then(() => true, () => false);
  await rm(file, { force: true });
  return existed;
}

/**
 * The login a command uses: XCLAW_URL and XCLAW_TOKEN override the stored one (scripts, CI). The
 * stored token is never sent to another server than the one it was stored for: XCLAW_URL alone
 * uses it only when it names the same server.
 */
export async function resolveLogin(env: NodeJS.ProcessEnv = process.env): Promise<TLogin> {
  const url = env.XCLAW_URL?.trim() ? serverOrigin(env.XCLAW_URL) : undefined;
  const token = env.XCLAW_TOKEN?.trim() || undefined;
  if (url && token) return { url, token };
  const stored = await readStoredLogin(env);
  if (token) {
    if (!stored) throw new AppError("unauthorized", "XCLAW_TOKEN is set but no server is: set XCLAW_URL too, or log in with xclaw login <url>.");
    return { url: stored.url, token };
  }
  if (!stored) throw new AppError("unauthorized", "Not logged in. Run xclaw login <url> with a token from Settings → API tokens, or set XCLAW_URL and XCLAW_TOKEN.");
  if (url && url !== stored.url) {
    throw new AppError("unauthorized", `XCLAW_URL is ${url}, but the stored token is for ${stored.url} and is not sent anywhere else: set XCLAW_TOKEN too, or log in to ${url}.`);
  }
  return stored;
}

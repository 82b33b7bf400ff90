import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Password hashing with scrypt (memory-hard, built into Node, no native addon to compile).
 * N=2^15, r=8 uses 32 MiB per hash, the OWASP recommendation for scrypt. The parameters are stored
 * with each hash so they can be raised later without invalidating existing passwords.
 * Format: scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
 */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 1 };
/** Longest password accepted anywhere; sign-in treats a longer one as wrong without hashing it. */
export const MAX_PASSWORD_LENGTH = 256;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMETERS);
  return ["scrypt", PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, saltText, keyText] = parts;
  const expected = Buffer.from(keyText!, "base64url");
  const key = await derive(password, Buffer.from(saltText!, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

// A real hash of a random password: verifying against it when the email is unknown takes as long
// as a real check, so response times do not reveal which emails have accounts.
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return decoyHash;
}

/** Returns why a password is too weak, or undefined when it is acceptable. */
export function passwordWeakness(password: string, options: { minLength: number; email?: string }): string | undefined {
  if (password.length < options.minLength) return `Password must be at least ${options.minLength} characters long.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  if (!/\p{L}/u.test(password) || !/[^\p{L}]/u.test(password)) {
    return "Password must mix letters with at least one digit or symbol.";
  }
  if (new Set(password).size < 4) return "Password is too repetitive.";
  if (options.email && password.toLowerCase().includes(options.email.split("@")[0]!.toLowerCase()) && options.email.split("@")[0]!.length >= 4) {
    return "Password must not contain your email name.";
  }
  return undefined;
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret, authSecrets } from "./environment";

/**
 * Seals secrets that xclaw must be able to read back later (a notification channel's webhook URL
 * and signing secret, a monitoring endpoint's HMAC secret, a plugin's sensitive settings), so that
 * a copy of the database alone does not reveal them. AES-256-GCM with a key derived (HKDF-SHA256)
 * from NEXTAUTH_SECRET and a purpose label: a sealed value is "v1:" + base64url(iv | tag | ciphertext).
 *
 * Values sealed under the previous secret stay readable while NEXTAUTH_SECRET_PREVIOUS is set, and
 * `npm run xclaw -- rotate-secret` re-seals them under the current one (resealSecret). A value
 * neither secret opens is reported as unreadable (the owner enters it again), never decrypted
 * wrongly (GCM). Node's crypto does this in a few lines; no library is needed for it.
 */
const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretBoxError";
  }
}

/**
 * A column of sealed values, for the rotation (lib/app/sealed-columns.ts lists them all); `reseal`
 * when the column's values need more than resealSecret (an earlier format).
 */
export type TSealedColumn = { table: string; column: string; purpose: string; reseal?: (stored: string) => string | undefined };

function keyFor(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "xclaw secret box", `${VERSION}:${purpose}`, 32));
}

export function sealSecret(plain: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(authSecret(), purpose), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** The plain value and whether the current secret sealed it. */
function open(sealed: string, purpose: string): { plain: string; current: boolean } {
  const [version, data] = sealed.split(":", 2);
  if (version !== VERSION || !data) throw new SecretBoxError("The stored secret has an unknown format.");
  const bytes = Buffer.from(data, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError("The stored secret is damaged.");
  const secrets = authSecrets();
  for (const [index, secret] of secrets.entries()) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", keyFor(secret, purpose), bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return { plain: Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8"), current: index === 0 };
    } catch {
      // Not this secret: try the next.
    }
  }
  throw new SecretBoxError("The stored secret cannot be read: NEXTAUTH_SECRET changed since it was saved. Enter it again.");
}

export function openSecret(sealed: string, purpose: string): string {
  return open(sealed, purpose).plain;
}

/** The value sealed under the current secret, or undefined when it already is. Throws when neither secret opens it. */
export function resealSecret(sealed: string, purpose: string): string | undefined {
  const opened = open(sealed, purpose);
  return opened.current ? undefined : sealSecret(opened.plain, purpose);
}

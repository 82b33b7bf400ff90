import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret } from "./environment";

/**
 * Seals secrets that xclaw must be able to read back later (a notification channel's webhook URL
 * and signing secret, a monitoring endpoint's HMAC secret), so that a copy of the database alone
 * does not reveal them. AES-256-GCM with a key derived (HKDF-SHA256) from NEXTAUTH_SECRET and a
 * purpose label: a sealed value is "v1:" + base64url(iv | tag | ciphertext).
 *
 * Changing NEXTAUTH_SECRET makes sealed values unreadable: they are reported as such (the owner
 * enters the channel URL again, or rotates the endpoint secret), never decrypted wrongly (GCM).
 * Node's crypto does this in a few lines; no library is needed for it.
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

function keyFor(purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(), "xclaw secret box", `${VERSION}:${purpose}`, 32));
}

export function sealSecret(plain: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(purpose), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

export function openSecret(sealed: string, purpose: string): string {
  const [version, data] = sealed.split(":", 2);
  if (version !== VERSION || !data) throw new SecretBoxError("The stored secret has an unknown format.");
  const bytes = Buffer.from(data, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError("The stored secret is damaged.");
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(purpose), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretBoxError("The stored secret cannot be read: NEXTAUTH_SECRET changed since it was saved. Enter it again.");
  }
}

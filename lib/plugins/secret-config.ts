import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret } from "@/lib/config/environment";

/**
 * Sensitive plugin settings (configSchema fields marked `sensitive`) are stored encrypted with
 * AES-256-GCM under a key derived from the auth secret, so a database dump alone does not give
 * them away. They are write-only: no API answer and no page ever contains them.
 */
function key(): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(), "xclaw", "plugin secret config v1", 32));
}

export function encryptSecrets(values: Record<string, string>): string | null {
  if (!Object.keys(values).length) return null;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(values), "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${sealed.toString("base64url")}`;
}

export function decryptSecrets(stored: string | null): Record<string, string> {
  if (!stored) return {};
  const [version, iv, tag, sealed] = stored.split(".");
  if (version !== "v1" || !iv || !tag || !sealed) throw new Error("the stored plugin secrets are in an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  try {
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8")) as Record<string, string>;
  } catch {
    throw new Error("the stored plugin secrets cannot be decrypted (was the auth secret changed?); enter them again");
  }
}

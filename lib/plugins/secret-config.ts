import { createDecipheriv, hkdfSync } from "node:crypto";
import { authSecrets } from "@/lib/config/environment";
import { openSecret, resealSecret, sealSecret, SecretBoxError, type TSealedColumn } from "@/lib/config/secret-box";

/**
 * Sensitive plugin settings (configSchema fields marked `sensitive`) are stored sealed with the
 * secret box (lib/config/secret-box.ts), so a database dump alone does not give them away. They
 * are write-only: no API answer and no page ever contains them. Values stored before the secret
 * box took this over ("v1." + iv.tag.ciphertext under their own key) are still read, and re-sealed
 * by the next save or `npm run xclaw -- rotate-secret`.
 */
const PURPOSE = "plugin-config";
const CANNOT_READ = "the stored plugin secrets cannot be decrypted (was the auth secret changed?); enter them again";

export function encryptSecrets(values: Record<string, string>): string | null {
  if (!Object.keys(values).length) return null;
  return sealSecret(JSON.stringify(values), PURPOSE);
}

/** The format before the secret box: its own key derivation, dot-separated base64url parts. */
function decryptEarlierFormat(stored: string): string {
  const [, iv, tag, sealed] = stored.split(".");
  if (!iv || !tag || !sealed) throw new Error("the stored plugin secrets are in an unknown format");
  for (const secret of authSecrets()) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", Buffer.from(hkdfSync("sha256", secret, "xclaw", "plugin secret config v1", 32)), Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      // Not this secret: try the next.
    }
  }
  throw new Error(CANNOT_READ);
}

export function decryptSecrets(stored: string | null): Record<string, string> {
  if (!stored) return {};
  if (stored.startsWith("v1.")) return JSON.parse(decryptEarlierFormat(stored)) as Record<string, string>;
  try {
    return JSON.parse(openSecret(stored, PURPOSE)) as Record<string, string>;
  } catch (error) {
    if (error instanceof SecretBoxError) throw new Error(CANNOT_READ);
    throw error;
  }
}

/** For the rotation: plugins.secretConfig, earlier-format values included. */
export const PLUGIN_SECRETS_COLUMN: TSealedColumn & { reseal: (stored: string) => string | undefined } = {
  table: "plugins",
  column: "secretConfig",
  purpose: PURPOSE,
  reseal: (stored) => (stored.startsWith("v1.") ? sealSecret(decryptEarlierFormat(stored), PURPOSE) : resealSecret(stored, PURPOSE)),
};

import { createDecipheriv, createHash, timingSafeEqual } from "node:crypto";

/**
 * Feishu's event encryption and signature (Events and callbacks → Encryption strategy):
 * - an encrypted body is `{"encrypt": base64(iv ‖ AES-256-CBC(event))}` with the key SHA-256(encrypt
 *   key), the IV in the first 16 bytes and PKCS#7 padding;
 * - `X-Lark-Signature` is hex SHA-256 of timestamp + nonce + encrypt key + the raw body bytes. The
 *   official SDK hashes a re-serialised object, which differs from what was sent for some bodies;
 *   here the bytes as received are hashed.
 */
export function decryptFeishu(encrypted: string, encryptKey: string): string {
  const bytes = Buffer.from(encrypted, "base64");
  if (bytes.length < 32 || bytes.length % 16 !== 0) throw new Error("The encrypted body is not AES-256-CBC output.");
  const key = createHash("sha256").update(encryptKey).digest();
  const decipher = createDecipheriv("aes-256-cbc", key, bytes.subarray(0, 16));
  return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString("utf8");
}

export function feishuSignature(timestamp: string, nonce: string, encryptKey: string, body: Uint8Array): string {
  return createHash("sha256").update(timestamp + nonce + encryptKey).update(body).digest("hex");
}

export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

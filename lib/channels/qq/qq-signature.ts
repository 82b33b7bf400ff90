import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { LRUCache } from "lru-cache";
import { processSingleton } from "@/lib/process-singleton";

/**
 * QQ's callback signatures: Ed25519 with a key whose 32-byte seed is the bot secret repeated until
 * it is long enough, then cut. Node's crypto builds the private key from the seed as PKCS8 DER
 * (a fixed 16-byte prefix, then the seed), and the public key from it; no package is needed.
 * Every callback is signed over `X-Signature-Timestamp` + the raw body; the callback validation
 * (op 13) is answered with a signature over `event_ts` + `plain_token`.
 */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SEED_BYTES = 32;

type TKeyPair = { privateKey: KeyObject; publicKey: KeyObject };

// Building the keys costs more than a verification: kept per secret (bounded, process-wide).
const keyPairs = processSingleton("qq-key-pairs", () => new LRUCache<string, TKeyPair>({ max: 1_000 }));

export function seedOf(secret: string): Buffer {
  if (!secret) throw new Error("The QQ bot secret is empty.");
  let seed = secret;
  while (Buffer.byteLength(seed) < SEED_BYTES) seed = seed.repeat(2);
  return Buffer.from(seed).subarray(0, SEED_BYTES);
}

export function keyPairOf(secret: string): TKeyPair {
  let pair = keyPairs.get(secret);
  if (!pair) {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seedOf(secret)]), format: "der", type: "pkcs8" });
    pair = { privateKey, publicKey: createPublicKey(privateKey) };
    keyPairs.set(secret, pair);
  }
  return pair;
}

/** Hex Ed25519 signature of `message` (what QQ expects in the op 13 answer). */
export function signQq(secret: string, message: string | Buffer): string {
  return sign(null, Buffer.isBuffer(message) ? message : Buffer.from(message), keyPairOf(secret).privateKey).toString("hex");
}

/** Whether `signatureHex` signs timestamp + body with the bot's key; the body is the raw bytes as received. */
export function verifyQq(secret: string, timestamp: string, body: Uint8Array, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  const signature = Buffer.from(signatureHex, "hex");
  // RFC 8032: the top three bits of the last byte of S are zero in every valid signature (QQ's own check).
  if ((signature[63]! & 0xe0) !== 0) return false;
  return verify(null, Buffer.concat([Buffer.from(timestamp), body]), keyPairOf(secret).publicKey, signature);
}

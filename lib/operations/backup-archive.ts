import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { z } from "zod";

/**
 * The backup archive (`npm run xclaw -- backup <file>`): one tar file holding
 * - `manifest.json`: what the archive is, when and from which version it was made, and the SHA-256
 *   of each other member, checked before anything is restored;
 * - the database: `database.dump` (pg_dump's custom format, for PostgreSQL) or
 *   `database.pglite.tar.gz` (the embedded database's own data-directory dump);
 * - `data.tar.gz`: the data directory (workspaces, uploaded plugin and skill bundles), without the
 *   embedded database's files and without the generated auth secret.
 */
export const BACKUP_FORMAT = "xclaw-backup";
export const MANIFEST_NAME = "manifest.json";
export const DATA_MEMBER = "data.tar.gz";
export const DATABASE_MEMBER = { postgres: "database.dump", pglite: "database.pglite.tar.gz" } as const;

const ZMember = z.strictObject({ name: z.string().regex(/^[a-z.]+(\.[a-z]+)*$/), bytes: z.int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

export const ZBackupManifest = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  formatVersion: z.literal(1),
  createdAt: z.iso.datetime(),
  appVersion: z.string(),
  database: z.strictObject({ kind: z.enum(["postgres", "pglite"]), migrations: z.array(z.string()), member: ZMember }),
  data: ZMember,
});
export type TBackupManifest = z.infer<typeof ZBackupManifest>;
export type TBackupMember = z.infer<typeof ZMember>;

/** SHA-256 and size of a file, streamed (a database dump can be large). */
export async function describeFile(name: string, file: string): Promise<TBackupMember> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { name, bytes, sha256: hash.digest("hex") };
}

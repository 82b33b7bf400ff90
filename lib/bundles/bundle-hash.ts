import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, type TBundleFile } from "./bundle-files";

/**
 * The SHA-256 that pins a reviewed version: the hash of the sorted list of `<sha256 of file>  <path>`
 * lines, like `sha256sum` output. It depends only on the files' paths and contents (not on how the
 * zip was packed), so the same check can be run again on the unpacked folder right before the code
 * or the instructions are used: a file changed on disk after review no longer matches.
 */
export function bundleSha256(files: readonly TBundleFile[]): string {
  const lines = files
    .map((file) => `${createHash("sha256").update(file.data).digest("hex")}  ${file.path}\n`)
    .sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : a.slice(66) > b.slice(66) ? 1 : 0));
  return createHash("sha256").update(lines.join("")).digest("hex");
}

/** Reads an unpacked bundle back from disk; symlinks and special files make it unusable. */
export async function readBundleFolder(root: string): Promise<TBundleFile[]> {
  const files: TBundleFile[] = [];
  let total = 0;
  async function walk(relative: string) {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      const stats = await lstat(path.join(root, child));
      if (stats.isSymbolicLink()) throw new Error(`${child} is a symbolic link`);
      if (stats.isDirectory()) await walk(child);
      else if (stats.isFile()) {
        total += stats.size;
        if (files.length >= MAX_BUNDLE_FILES || total > MAX_BUNDLE_BYTES) throw new Error("the folder holds more than a bundle may");
        files.push({ path: child, data: await readFile(path.join(root, child)) });
      } else throw new Error(`${child} is not a regular file`);
    }
  }
  await walk("");
  return files;
}

/** Throws unless the folder still holds exactly the reviewed files. */
export async function verifyBundleFolder(root: string, expectedSha256: string): Promise<TBundleFile[]> {
  const files = await readBundleFolder(root);
  const actual = bundleSha256(files);
  if (actual !== expectedSha256) {
    throw new Error(`its files changed after review (SHA-256 ${actual.slice(0, 12)}…, approved ${expectedSha256.slice(0, 12)}…)`);
  }
  return files;
}

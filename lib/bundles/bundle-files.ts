import path from "node:path";
import yauzl from "yauzl";
import { AppError } from "@/lib/errors";

/**
 * An uploaded plugin or skill bundle, read into memory before anything is written to disk: a zip
 * archive (read with yauzl, entry by entry, names and types checked before any data is read) or the
 * files of a folder (a browser folder upload sends each file with its relative path as its name).
 * What cannot be installed safely is reported as a `refusal`, never silently fixed: an entry that
 * climbs out of the bundle (zip-slip), an absolute path, a symlink or device, too many files, too
 * many bytes.
 */
export const MAX_BUNDLE_FILES = 256;
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

export type TBundleFile = { path: string; data: Buffer };

export type TBundleRefusal = { rule: "zip-slip" | "absolute-path" | "symlink" | "special-file" | "too-many-files" | "too-large" | "duplicate-path" | "encrypted" | "unreadable"; path?: string; detail: string };

export type TBundleRead = { files: TBundleFile[]; refusals: TBundleRefusal[] };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Checks one path as written in the archive; returns the clean relative path or a refusal. */
export function checkBundlePath(raw: string): { path: string } | TBundleRefusal {
  const display = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  if (raw.includes("\0")) return { rule: "zip-slip", path: display, detail: "The path contains a NUL character." };
  const slashed = raw.replace(/\\/g, "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed) || slashed.startsWith("//")) {
    return { rule: "absolute-path", path: display, detail: "An absolute path would be written outside the bundle's folder." };
  }
  const segments = slashed.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) return { rule: "zip-slip", path: display, detail: "The path climbs out of the bundle's folder with \"..\" (zip-slip)." };
  if (!segments.length) return { rule: "zip-slip", path: display, detail: "The path is empty." };
  return { path: segments.join("/") };
}

function isRefusal(value: { path: string } | TBundleRefusal): value is TBundleRefusal {
  return "rule" in value;
}

/** A single top-level folder that wraps everything (`my-skill/SKILL.md`) is unwrapped. */
function unwrapSingleFolder(files: TBundleFile[]): TBundleFile[] {
  const tops = new Set(files.map((file) => file.path.split("/")[0]));
  if (tops.size !== 1 || files.some((file) => !file.path.includes("/"))) return files;
  const [top] = [...tops];
  return files.map((file) => ({ ...file, path: file.path.slice(top!.length + 1) }));
}

async function readStream(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw new AppError("payload_too_large", `The bundle holds more than ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB once unpacked.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readZipBundle(archive: Buffer): Promise<TBundleRead> {
  const refusals: TBundleRefusal[] = [];
  const files: TBundleFile[] = [];
  let zip: yauzl.ZipFile;
  try {
    // decodeStrings: false keeps yauzl from rejecting the whole archive at the first bad name, so
    // every bad entry is reported; names are decoded and checked here instead.
    zip = await yauzl.fromBufferPromise(archive, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true });
  } catch (error) {
    return { files, refusals: [{ rule: "unreadable", detail: `This is not a readable zip archive (${(error as Error).message}).` }] };
  }
  try {
    if (zip.entryCount > MAX_BUNDLE_FILES * 4) {
      // Not even the names of an archive this size are read (10,000 entries is a denial of service on review).
      return { files, refusals: [{ rule: "too-many-files", detail: `The archive has ${zip.entryCount} entries; a bundle may hold at most ${MAX_BUNDLE_FILES} files.` }] };
    }
    const seen = new Set<string>();
    let total = 0;
    let fileCount = 0;
    for await (const entry of zip.eachEntry()) {
      const rawName = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false);
      const checked = checkBundlePath(rawName);
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const madeOnUnix = entry.versionMadeBy >> 8 === 3;
      const isDirectory = rawName.endsWith("/") || (madeOnUnix && mode === S_IFDIR);
      if (isRefusal(checked)) {
        refusals.push(checked);
        continue;
      }
      if (madeOnUnix && mode === S_IFLNK) {
        refusals.push({ rule: "symlink", path: checked.path, detail: "A symbolic link could point anywhere on the server once unpacked." });
        continue;
      }
      if (isDirectory) continue;
      if (madeOnUnix && mode !== 0 && mode !== S_IFREG) {
        refusals.push({ rule: "special-file", path: checked.path, detail: "Only regular files may be in a bundle (no devices, pipes or sockets)." });
        continue;
      }
      if (entry.isEncrypted()) {
        refusals.push({ rule: "encrypted", path: checked.path, detail: "Encrypted entries cannot be reviewed." });
        continue;
      }
      fileCount += 1;
      if (fileCount > MAX_BUNDLE_FILES) {
        refusals.push({ rule: "too-many-files", detail: `The archive has more than ${MAX_BUNDLE_FILES} files.` });
        break;
      }
      const key = checked.path.toLowerCase();
      if (seen.has(key)) {
        refusals.push({ rule: "duplicate-path", path: checked.path, detail: "The same path appears twice (one entry would silently replace the other)." });
        continue;
      }
      seen.add(key);
      total += entry.uncompressedSize;
      if (total > MAX_BUNDLE_BYTES) {
        refusals.push({ rule: "too-large", detail: `The bundle holds more than ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB once unpacked.` });
        break;
      }
      const data = await readStream(await zip.openReadStreamPromise(entry), MAX_BUNDLE_BYTES);
      files.push({ path: checked.path, data });
    }
  } catch (error) {
    if (error instanceof AppError && error.code === "payload_too_large") refusals.push({ rule: "too-large", detail: error.message });
    else refusals.push({ rule: "unreadable", detail: `The archive could not be read to the end (${(error as Error).message}).` });
  } finally {
    zip.close();
  }
  return { files: unwrapSingleFolder(files), refusals };
}

/** The files of a folder upload (or one markdown file), each named by its path in the folder. */
export function readFolderBundle(uploaded: { name: string; data: Buffer }[]): TBundleRead {
  const refusals: TBundleRefusal[] = [];
  const files: TBundleFile[] = [];
  if (uploaded.length > MAX_BUNDLE_FILES) {
    return { files, refusals: [{ rule: "too-many-files", detail: `${uploaded.length} files were sent; a bundle may hold at most ${MAX_BUNDLE_FILES}.` }] };
  }
  let total = 0;
  const seen = new Set<string>();
  for (const file of uploaded) {
    const checked = checkBundlePath(file.name);
    if (isRefusal(checked)) {
      refusals.push(checked);
      continue;
    }
    if (seen.has(checked.path.toLowerCase())) {
      refusals.push({ rule: "duplicate-path", path: checked.path, detail: "The same path appears twice." });
      continue;
    }
    seen.add(checked.path.toLowerCase());
    total += file.data.length;
    if (total > MAX_BUNDLE_BYTES) {
      refusals.push({ rule: "too-large", detail: `The bundle holds more than ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB.` });
      break;
    }
    files.push({ path: checked.path, data: file.data });
  }
  return { files: unwrapSingleFolder(files), refusals };
}

/** Is this upload a zip archive (by its magic number, not by its name)? */
export function looksLikeZip(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32LE(0) === 0x04034b50;
}

export function bundleExtension(filePath: string): string {
  return path.extname(filePath).toLowerCase();
}

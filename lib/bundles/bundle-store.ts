import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { dataDirectory } from "@/lib/config/environment";
import type { TBundleFile } from "./bundle-files";

/**
 * Reviewed bundles live unpacked under `$XCLAW_DATA_DIR/extensions/<kind>/<name>/<sha256>/`: one
 * folder per reviewed version, written once (into a temporary folder, then renamed into place) and
 * never changed. Enabling a version points the plugin or skill at its folder; its SHA-256 is
 * checked again before its code or instructions are used.
 */
export type TBundleKind = "plugins" | "skills";

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function bundleDirectory(kind: TBundleKind, name: string, sha256: string): string {
  if (!NAME.test(name) || !/^[0-9a-f]{64}$/.test(sha256)) throw new Error("invalid bundle name or hash");
  return path.join(dataDirectory(), "extensions", kind, name, sha256);
}

export async function storeBundle(options: { kind: TBundleKind; name: string; sha256: string; files: readonly TBundleFile[] }): Promise<string> {
  const target = bundleDirectory(options.kind, options.name, options.sha256);
  const temporary = `${target}.tmp-${randomBytes(6).toString("hex")}`;
  await mkdir(temporary, { recursive: true, mode: 0o755 });
  try {
    for (const file of options.files) {
      const destination = path.resolve(temporary, file.path);
      // The paths were checked when the bundle was read; this is the last line of defence.
      if (!destination.startsWith(`${temporary}${path.sep}`)) throw new Error(`refusing to write ${file.path} outside the bundle`);
      await mkdir(path.dirname(destination), { recursive: true, mode: 0o755 });
      await writeFile(destination, file.data, { mode: 0o644, flag: "wx" });
    }
    try {
      await rename(temporary, target);
    } catch (error) {
      // The same version (same hash, same files) was stored before: keep that one.
      if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY" && (error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      await rm(temporary, { recursive: true, force: true });
    }
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  return target;
}

import { AppError } from "@/lib/errors";
import { parseMediaType, readBodyBytes } from "@/lib/http/request-body";
import { looksLikeZip, MAX_BUNDLE_BYTES, readFolderBundle, readZipBundle, type TBundleRead } from "./bundle-files";

/**
 * Reads an upload (`multipart/form-data`, field `file`): one zip archive, one SKILL.md, or the
 * files of a folder (each sent with its path in the folder as its file name). The body is capped
 * while it is read, before any parsing.
 */
const MAX_UPLOAD_BYTES = MAX_BUNDLE_BYTES + 1024 * 1024;

export async function readUploadedBundle(request: Request): Promise<TBundleRead & { fileName: string }> {
  const media = parseMediaType(request.headers.get("content-type"));
  if (media?.type !== "multipart/form-data") {
    throw new AppError("unsupported_media_type", "Send the bundle as multipart/form-data with a field named file (a .zip, a SKILL.md, or a folder's files).");
  }
  const bytes = await readBodyBytes(request, MAX_UPLOAD_BYTES);
  let form: FormData;
  try {
    form = await new Response(Buffer.from(bytes), { headers: { "content-type": request.headers.get("content-type")! } }).formData();
  } catch {
    throw new AppError("bad_request", "The upload is not valid multipart/form-data.");
  }
  const files = form.getAll("file").filter((value): value is File => typeof value === "object" && value !== null && "arrayBuffer" in value);
  if (!files.length) throw new AppError("bad_request", "No file was sent: use a multipart field named file.");
  const uploaded = await Promise.all(files.map(async (file) => ({ name: file.name, data: Buffer.from(await file.arrayBuffer()) })));
  const first = uploaded[0]!;
  if (uploaded.length === 1 && looksLikeZip(first.data)) return { ...(await readZipBundle(first.data)), fileName: first.name };
  if (uploaded.length === 1 && /\.md$/i.test(first.name)) return { ...readFolderBundle([{ name: "SKILL.md", data: first.data }]), fileName: first.name };
  if (uploaded.length === 1 && !first.name.includes("/")) {
    throw new AppError("bad_request", "Upload a .zip archive, a SKILL.md file, or a whole folder.");
  }
  return { ...readFolderBundle(uploaded), fileName: first.name.split("/")[0] ?? first.name };
}

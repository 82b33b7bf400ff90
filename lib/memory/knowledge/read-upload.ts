import { AppError } from "@/lib/errors";
import { formatBytes, parseMediaType, readBodyBytes } from "@/lib/http/request-body";

/**
 * Reads a multipart/form-data upload with one file in the field `file`. JSON bodies have their
 * limit (http.maxJsonBytes); uploads have their own, knowledge.maxFileBytes plus room for the
 * multipart framing, enforced while the body is read (a declared Content-Length over it is
 * refused before reading anything). The client's file name is returned for display only.
 */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export async function readUpload(request: Request, maxFileBytes: number): Promise<{ filename: string; bytes: Uint8Array }> {
  const header = request.headers.get("content-type");
  const media = parseMediaType(header);
  if (media?.type !== "multipart/form-data" || !media.parameters.boundary) {
    throw new AppError("unsupported_media_type", "Upload the file as multipart/form-data, in a field named file.");
  }
  let body: Uint8Array;
  try {
    body = await readBodyBytes(request, maxFileBytes + MULTIPART_OVERHEAD_BYTES);
  } catch (error) {
    if (error instanceof AppError && error.code === "payload_too_large") {
      throw new AppError("payload_too_large", `The file is larger than the upload limit of ${formatBytes(maxFileBytes)} (knowledge.maxFileBytes).`, { headers: error.headers });
    }
    throw error;
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { "content-type": header! } }).formData();
  } catch {
    throw new AppError("bad_request", "The upload is not a valid multipart/form-data body.");
  }
  const files = form.getAll("file");
  if (files.length !== 1 || typeof files[0] === "string") throw new AppError("bad_request", "Send exactly one file, in a field named file.");
  const file = files[0] as File;
  if (file.size > maxFileBytes) throw new AppError("payload_too_large", `The file is larger than the upload limit of ${formatBytes(maxFileBytes)} (knowledge.maxFileBytes).`);
  return { filename: file.name || "document", bytes: new Uint8Array(await file.arrayBuffer()) };
}

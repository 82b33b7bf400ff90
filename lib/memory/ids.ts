import { z } from "zod";
import { AppError } from "@/lib/errors";

/** An id from a URL or a tool argument: anything that is not a UUID cannot name a row, so "not found". */
export function requireId(id: string, what: string): string {
  if (!z.uuid().safeParse(id).success) throw new AppError("not_found", `No such ${what}.`);
  return id;
}

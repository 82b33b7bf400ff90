import { requireUser } from "@/lib/auth/authenticate";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { readBodyBytes } from "@/lib/http/request-body";
import { route } from "@/lib/http/route";
import { storeAttachment } from "@/lib/sessions/attachments";
import { getSessionOrThrow } from "@/lib/sessions/sessions";

/**
 * Uploads one file for a message of this chat: the body is the file itself, `?name=` its name. It
 * is stored in the caller's workspace under uploads/ and named in the answer; the message then
 * lists the paths (POST /api/chat `attachments`).
 */
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await getSessionOrThrow({ userId: user.id, sessionId: params.id });
  const name = new URL(request.url).searchParams.get("name")?.trim();
  if (!name) throw new AppError("bad_request", "Give the file's name as ?name=….");
  const data = await readBodyBytes(request, getBehaviourConfig().chat.attachments.maxFileBytes);
  return Response.json({ attachment: await storeAttachment({ userId: user.id, fileName: name, data }) }, { status: 201 });
});

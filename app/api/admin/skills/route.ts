import { requireAdmin } from "@/lib/auth/authenticate";
import { readUploadedBundle } from "@/lib/bundles/read-upload";
import { route } from "@/lib/http/route";
import { listSkillsForAdmin, stageSkillUpload } from "@/lib/skills/skill-admin";

export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ skills: await listSkillsForAdmin() });
});

/** Upload (multipart `file`): scanned and staged (201 with the report), or refused (400 with the report). */
export const POST = route(async (request) => {
  const { user } = await requireAdmin(request);
  const bundle = await readUploadedBundle(request);
  const outcome = await stageSkillUpload({ bundle, uploadedById: user.id });
  if (outcome.status === "refused") {
    return Response.json({ error: { code: "bad_request", message: "The skill was refused; nothing was stored. See the report." }, ...outcome }, { status: 400 });
  }
  return Response.json(outcome, { status: 201 });
});

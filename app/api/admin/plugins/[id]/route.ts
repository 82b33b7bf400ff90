import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getPluginForAdmin, updatePlugin, ZPluginPatch } from "@/lib/plugins/plugin-admin";

/** One plugin: status, permissions in words, its configuration form (sensitive values never included), revisions. */
export const GET = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  return Response.json(await getPluginForAdmin(params.id));
});

/** `{enabled, sha256?, acknowledgeRisks?}` */
export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireAdmin(request);
  const patch = await readJson(request, ZPluginPatch);
  return Response.json({ plugin: await updatePlugin({ id: params.id, patch, adminId: user.id }) });
});

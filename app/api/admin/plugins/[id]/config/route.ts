import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getPluginForAdmin } from "@/lib/plugins/plugin-admin";
import { updatePluginConfig, ZPluginConfigInput } from "@/lib/plugins/plugin-config";
import { syncPlugins } from "@/lib/plugins/plugin-runtime";

/** Saves the settings (`{values, clear?}`); a running plugin is restarted with them. */
export const PUT = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  const input = await readJson(request, ZPluginConfigInput);
  await updatePluginConfig({ id: params.id, input });
  await syncPlugins();
  return Response.json(await getPluginForAdmin(params.id));
});

import type { Metadata } from "next";
import { PluginsAdmin } from "@/components/admin/plugins-admin";
import { ExtensionAdminPage } from "@/components/extensions/extension-admin-page";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listPluginsForAdmin } from "@/lib/plugins/plugin-admin";

export const metadata: Metadata = { title: "Plugins" };

export default async function AdminPluginsPage() {
  await requirePageAdmin();
  const plugins = await listPluginsForAdmin({ refresh: true });
  return (
    <ExtensionAdminPage
      id="plugins"
      title="Plugins"
      description="Plugins add tools and background services. Each runs in its own process with only the settings, secrets and hosts it declares."
      other={{ href: "/admin/skills", label: "Skills" }}
    >
      <PluginsAdmin initialPlugins={plugins} />
    </ExtensionAdminPage>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { PluginsAdmin } from "@/components/admin/plugins-admin";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listPluginsForAdmin } from "@/lib/plugins/plugin-admin";

export const metadata: Metadata = { title: "Plugins" };

export default async function AdminPluginsPage() {
  await requirePageAdmin();
  const plugins = await listPluginsForAdmin({ refresh: true });
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Plugins" description="Plugins add tools and background services. Each runs in its own process with only the settings, secrets and hosts it declares." />
      <p className="mb-4 text-sm">
        <Link href="/admin/skills" className="text-blue-700 underline-offset-2 hover:underline dark:text-blue-400">
          Skills →
        </Link>
      </p>
      <Section id="plugins" title="Plugins">
        <PluginsAdmin initialPlugins={plugins} />
      </Section>
    </div>
  );
}

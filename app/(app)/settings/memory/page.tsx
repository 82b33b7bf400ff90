import type { Metadata } from "next";
import Link from "next/link";
import { MemoryManager } from "@/components/memory/memory-manager";
import { SearchNotice } from "@/components/memory/search-notice";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { getMemorySettings } from "@/lib/memory/memories/memory-settings";
import { listMemories, toMemoryView } from "@/lib/memory/memories/memory-store";
import { searchStatus } from "@/lib/memory/search/search-status";

export const metadata: Metadata = { title: "Memory" };

export default async function MemorySettingsPage() {
  const user = await requirePageUser();
  const [memories, settings, status] = await Promise.all([listMemories({ userId: user.id, limit: 500 }), getMemorySettings(user.id), searchStatus(user.id)]);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <nav aria-label="Breadcrumb" className="mb-2 text-sm text-neutral-500 dark:text-neutral-400">
        <Link href="/settings" className="underline-offset-2 hover:underline">
          Settings
        </Link>{" "}
        › Memory
      </nav>
      <PageHeader
        title="Memory"
        description="What xclaw remembers about you across chats. The closest memories are shown to the agent with each message, as reference — never as instructions."
      />
      <div className="space-y-6">
        <SearchNotice status={status} />
        <Section id="memories" title="Your memories">
          <MemoryManager initialMemories={memories.map((memory) => toMemoryView(memory))} initialAutoExtract={settings.autoExtract} />
        </Section>
        {user.role === "ADMIN" ? (
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            Administrators: the embedding provider and re-embedding are on{" "}
            <Link href="/admin/memory" className="underline underline-offset-2">
              Admin → Memory
            </Link>
            .
          </p>
        ) : null}
      </div>
    </div>
  );
}

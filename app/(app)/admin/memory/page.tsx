import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { MemoryAdmin } from "@/components/admin/memory-admin";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { embeddingAdminStatus } from "@/lib/memory/search/embedding-admin";

export const metadata: Metadata = { title: "Memory · Admin" };

export default async function MemoryAdminPage() {
  const user = await requirePageUser();
  if (user.role !== "ADMIN") notFound();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Memory and search" description="Embeddings for every user's memories and knowledge bases." />
      <Section id="embeddings" title="Embeddings" description="Changing embeddings.model or EMBEDDINGS_MODEL never mixes vectors: re-embed here after a change.">
        <MemoryAdmin initialStatus={await embeddingAdminStatus()} />
      </Section>
    </div>
  );
}

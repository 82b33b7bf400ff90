import type { Metadata } from "next";
import { KnowledgeManager } from "@/components/knowledge/knowledge-manager";
import { SearchNotice } from "@/components/memory/search-notice";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { listKnowledgeBases } from "@/lib/memory/knowledge/knowledge-bases";
import { searchStatus } from "@/lib/memory/search/search-status";

export const metadata: Metadata = { title: "Knowledge" };

export default async function KnowledgePage() {
  const user = await requirePageUser();
  const [bases, status] = await Promise.all([listKnowledgeBases({ userId: user.id }), searchStatus(user.id)]);
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader
        title="Knowledge"
        description="Documents the agent answers from. The passages closest to each message are shown to it as reference data, with the document and chunk to cite."
      />
      <div className="space-y-6">
        <SearchNotice status={status} />
        <KnowledgeManager initialBases={bases} />
      </div>
    </div>
  );
}

import { Alert } from "@/components/ui/alert";
import type { TSearchStatus } from "@/lib/wire/memory";

/** Says plainly when search is full-text only, or when some rows still wait for their vectors. */
export function SearchNotice({ status }: { status: TSearchStatus }) {
  if (status.lexicalOnly) {
    return (
      <Alert tone="info" role="note">
        Search is <strong>full-text only</strong>: no embedding provider is configured, so matches need shared words. An administrator can set
        EMBEDDINGS_BASE_URL / EMBEDDINGS_API_KEY (or the OpenAI settings) to search by meaning; what you save now is embedded then.
      </Alert>
    );
  }
  if (status.pendingEmbeddings > 0) {
    return (
      <Alert tone="info" role="note">
        {status.pendingEmbeddings} {status.pendingEmbeddings === 1 ? "entry is" : "entries are"} still waiting for vectors of {status.modelKey}; until then they are found by their words.
      </Alert>
    );
  }
  return null;
}

import { db } from "@/lib/db/client";
import { sendEvent } from "@/lib/jobs/send-event";
import { embeddingSettings } from "./embeddings";
import { embeddingCoverage } from "./entries";
import { REEMBED_EVENT } from "./reembed";
import type { TEmbeddingAdminStatus } from "@/lib/wire/memory";

export type { TEmbeddingAdminStatus };


export async function embeddingAdminStatus(): Promise<TEmbeddingAdminStatus> {
  const settings = embeddingSettings();
  const [memories, chunks, lastRun] = await Promise.all([
    embeddingCoverage("memory_entries", settings?.modelKey),
    embeddingCoverage("chunk_entries", settings?.modelKey),
    db().jobRun.findFirst({ where: { jobId: { in: ["memory.reembed", "memory.backfill"] } }, orderBy: { createdAt: "desc" } }),
  ]);
  return {
    configured: Boolean(settings),
    model: settings?.model ?? null,
    dimensions: settings?.dimensions ?? null,
    modelKey: settings?.modelKey ?? null,
    memories,
    chunks,
    lastRun: lastRun && {
      id: lastRun.id,
      jobId: lastRun.jobId,
      status: lastRun.status.toLowerCase(),
      createdAt: lastRun.createdAt.toISOString(),
      endedAt: lastRun.endedAt?.toISOString() ?? null,
      error: lastRun.error,
    },
  };
}

/** Starts memory.reembed for every row without a vector of the configured model. */
export async function requestReembed(): Promise<{ runIds: string[] }> {
  const result = await sendEvent({ name: REEMBED_EVENT, data: { scope: "stale" } });
  return { runIds: result.runIds };
}

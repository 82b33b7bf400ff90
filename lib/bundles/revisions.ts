import { db } from "@/lib/db/client";
import type { ExtensionKind, ExtensionRevision, Prisma } from "@/lib/db/generated/client";
import type { TScanReport } from "./scan-bundle";

/**
 * Reviewed versions of uploaded plugins and skills. A new upload is STAGED (replacing any version
 * still waiting for review); enabling approves exactly one SHA-256; approved versions stay listed,
 * so an admin can go back to one.
 */
export async function stageRevision(options: {
  kind: ExtensionKind;
  name: string;
  version?: string;
  sha256: string;
  report: TScanReport;
  metadata: Prisma.InputJsonValue;
  directory: string;
  uploadedById: string;
}): Promise<ExtensionRevision> {
  const { kind, name, sha256 } = options;
  return db().$transaction(async (tx) => {
    const existing = await tx.extensionRevision.findUnique({ where: { kind_name_sha256: { kind, name, sha256 } } });
    if (existing?.status === "APPROVED") return existing;
    await tx.extensionRevision.updateMany({ where: { kind, name, status: "STAGED", NOT: { sha256 } }, data: { status: "DISCARDED" } });
    const data = { version: options.version ?? null, report: options.report as unknown as Prisma.InputJsonValue, metadata: options.metadata, directory: options.directory, uploadedById: options.uploadedById, status: "STAGED" as const };
    return tx.extensionRevision.upsert({ where: { kind_name_sha256: { kind, name, sha256 } }, create: { kind, name, sha256, ...data }, update: data });
  });
}

/** The revision to enable: the given hash (staged or approved before), else the one waiting for review. */
export async function revisionToEnable(kind: ExtensionKind, name: string, sha256?: string): Promise<ExtensionRevision | null> {
  if (sha256) return db().extensionRevision.findFirst({ where: { kind, name, sha256, status: { in: ["STAGED", "APPROVED"] } } });
  return db().extensionRevision.findFirst({ where: { kind, name, status: "STAGED" }, orderBy: { createdAt: "desc" } });
}

export async function approveRevision(id: string, reviewerId: string): Promise<void> {
  await db().extensionRevision.update({ where: { id }, data: { status: "APPROVED", reviewedById: reviewerId, reviewedAt: new Date() } });
}

export type TRevisionView = { sha256: string; version: string | null; status: string; createdAt: string; reviewedAt: string | null; report: TScanReport };

export async function listRevisions(kind: ExtensionKind, name: string): Promise<TRevisionView[]> {
  const rows = await db().extensionRevision.findMany({ where: { kind, name }, orderBy: { createdAt: "desc" }, take: 50 });
  return rows.map((row) => ({
    sha256: row.sha256,
    version: row.version,
    status: row.status.toLowerCase(),
    createdAt: row.createdAt.toISOString(),
    reviewedAt: row.reviewedAt?.toISOString() ?? null,
    report: row.report as unknown as TScanReport,
  }));
}

export async function stagedRevisions(kind: ExtensionKind): Promise<Map<string, ExtensionRevision>> {
  const rows = await db().extensionRevision.findMany({ where: { kind, status: "STAGED" }, orderBy: { createdAt: "asc" } });
  return new Map(rows.map((row) => [row.name, row]));
}

/** High findings need the admin's explicit acknowledgement before the version can be enabled. */
export function highFindings(report: TScanReport): number {
  return report.findings.filter((finding) => finding.severity === "high").length;
}

import { z } from "zod";
import type { TBundleRead } from "@/lib/bundles/bundle-files";
import { storeBundle } from "@/lib/bundles/bundle-store";
import { approveRevision, highFindings, listRevisions, revisionToEnable, stageRevision, stagedRevisions, type TRevisionView } from "@/lib/bundles/revisions";
import { scanBundle, type TScanFinding, type TScanReport } from "@/lib/bundles/scan-bundle";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { parseSkillMarkdown, skillDeclaredHosts, type TSkillFrontMatter } from "./skill-format";
import { missingRequirements } from "./skill-folders";
import { syncBundledSkills } from "./skill-store";
import { forgetSkillListings } from "./skill-store";

/**
 * Admin side of skills: upload (staged, scanned, nothing usable yet), enable exactly a reviewed
 * SHA-256 (high findings need an explicit acknowledgement), disable, visibility, revisions.
 */
export type TAdminSkill = {
  name: string;
  description: string;
  source: "bundled" | "uploaded" | "plugin";
  pluginId: string | null;
  enabled: boolean;
  status: "enabled" | "disabled" | "staged" | "invalid";
  visibility: "everyone" | "admins" | "users";
  allowedUserIds: string[];
  sha256: string | null;
  /** A newer upload waiting for review. */
  staged: { sha256: string; createdAt: string; verdict: TScanReport["verdict"]; high: number } | null;
  missing: string[];
  lastError: string | null;
};

export async function listSkillsForAdmin(): Promise<TAdminSkill[]> {
  await syncBundledSkills();
  const [skills, staged] = await Promise.all([db().skill.findMany({ orderBy: { name: "asc" } }), stagedRevisions("SKILL")]);
  return skills.map((skill) => {
    const pending = staged.get(skill.name);
    const status = skill.lastError ? "invalid" : skill.enabled ? "enabled" : skill.source === "UPLOADED" && !skill.sha256 ? "staged" : "disabled";
    return {
      name: skill.name,
      description: skill.description,
      source: skill.source === "BUNDLED" ? "bundled" : skill.source === "PLUGIN" ? "plugin" : "uploaded",
      pluginId: skill.pluginId,
      enabled: skill.enabled,
      status,
      visibility: skill.visibility.toLowerCase() as TAdminSkill["visibility"],
      allowedUserIds: skill.allowedUserIds,
      sha256: skill.sha256,
      staged: pending ? { sha256: pending.sha256, createdAt: pending.createdAt.toISOString(), verdict: (pending.report as unknown as TScanReport).verdict, high: highFindings(pending.report as unknown as TScanReport) } : null,
      missing: skill.lastError ? [] : missingRequirements(skill.frontMatter as TSkillFrontMatter),
      lastError: skill.lastError,
    };
  });
}

export async function getSkillForAdmin(name: string): Promise<{ skill: TAdminSkill; revisions: TRevisionView[] }> {
  const skill = (await listSkillsForAdmin()).find((candidate) => candidate.name === name);
  if (!skill) throw new AppError("not_found", "No such skill.");
  return { skill, revisions: await listRevisions("SKILL", name) };
}

export type TUploadOutcome = { status: "staged" | "approved" | "refused"; name?: string; sha256: string; report: TScanReport };

/** Scans an upload; stores it as a staged revision unless something in it is refused. */
export async function stageSkillUpload(options: { bundle: TBundleRead; uploadedById: string }): Promise<TUploadOutcome> {
  const { bundle } = options;
  const formatFindings: TScanFinding[] = [];
  let frontMatter: TSkillFrontMatter | undefined;
  const skillFile = bundle.files.find((file) => file.path === "SKILL.md");
  if (!bundle.refusals.length) {
    if (!skillFile) formatFindings.push({ severity: "blocked", rule: "not-a-skill", detail: "There is no SKILL.md at the top of the bundle." });
    else {
      try {
        frontMatter = parseSkillMarkdown(skillFile.data.toString("utf8")).frontMatter;
      } catch (error) {
        formatFindings.push({ severity: "blocked", rule: "invalid-skill", path: "SKILL.md", detail: (error as Error).message });
      }
    }
  }
  const scanned = scanBundle(bundle.files, { refusals: bundle.refusals, declaredHosts: frontMatter ? skillDeclaredHosts(frontMatter) : [] });
  const report: TScanReport = { ...scanned, findings: [...formatFindings, ...scanned.findings], verdict: formatFindings.length ? "refused" : scanned.verdict };
  if (report.verdict === "refused" || !frontMatter) return { status: "refused", sha256: report.sha256, report };
  const name = frontMatter.name;
  const existing = await db().skill.findUnique({ where: { name } });
  if (existing && existing.source !== "UPLOADED") {
    const blocked: TScanReport = { ...report, verdict: "refused", findings: [{ severity: "blocked", rule: "name-taken", detail: `A ${existing.source === "BUNDLED" ? "bundled" : "plugin's"} skill is already called ${name}.` }, ...report.findings] };
    return { status: "refused", name, sha256: report.sha256, report: blocked };
  }
  const directory = await storeBundle({ kind: "skills", name, sha256: report.sha256, files: bundle.files });
  const revision = await stageRevision({ kind: "SKILL", name, sha256: report.sha256, report, metadata: frontMatter as Prisma.InputJsonValue, directory, uploadedById: options.uploadedById });
  if (!existing) {
    await db().skill.create({ data: { name, description: frontMatter.description, source: "UPLOADED", enabled: false, directory, frontMatter: frontMatter as Prisma.InputJsonValue } });
  }
  return { status: revision.status === "APPROVED" ? "approved" : "staged", name, sha256: report.sha256, report };
}

export const ZSkillPatch = z.strictObject({
  enabled: z.boolean().optional(),
  visibility: z.enum(["everyone", "admins", "users"]).optional(),
  /** With visibility "users": who may use the skill. */
  userIds: z.array(z.uuid()).max(1_000).optional(),
  /** Enable exactly this reviewed version (the one in the report); the waiting one when absent. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** Needed to enable a version whose report has high findings. */
  acknowledgeRisks: z.boolean().optional(),
});

export async function updateSkill(options: { name: string; patch: z.infer<typeof ZSkillPatch>; adminId: string }): Promise<TAdminSkill> {
  const { name, patch } = options;
  const skill = await db().skill.findUnique({ where: { name } });
  if (!skill) throw new AppError("not_found", "No such skill.");
  const data: Prisma.SkillUpdateInput = {};
  if (patch.visibility) data.visibility = patch.visibility.toUpperCase() as "EVERYONE" | "ADMINS" | "USERS";
  if (patch.userIds) {
    const found = await db().user.count({ where: { id: { in: patch.userIds } } });
    if (found !== new Set(patch.userIds).size) throw new AppError("bad_request", "Some of the chosen users do not exist.");
    data.allowedUserIds = [...new Set(patch.userIds)];
  }
  if (patch.enabled === false) data.enabled = false;
  if (patch.enabled === true) {
    if (skill.lastError) throw new AppError("conflict", `The skill cannot be enabled: ${skill.lastError}`);
    if (skill.source === "UPLOADED") {
      const revision = await revisionToEnable("SKILL", name, patch.sha256);
      if (patch.sha256 && !revision) throw new AppError("conflict", "No reviewed or waiting version of this skill has that SHA-256.");
      if (revision && revision.sha256 !== skill.sha256) {
        const report = revision.report as unknown as TScanReport;
        const high = highFindings(report);
        if (revision.status === "STAGED" && high && !patch.acknowledgeRisks) {
          throw new AppError("conflict", `This version has ${high} high-risk finding${high === 1 ? "" : "s"} in its report. Read them, then enable it with acknowledgeRisks: true if you trust it.`);
        }
        if (revision.status === "STAGED") await approveRevision(revision.id, options.adminId);
        const frontMatter = revision.metadata as TSkillFrontMatter;
        Object.assign(data, { directory: revision.directory, sha256: revision.sha256, description: frontMatter.description, frontMatter: frontMatter as Prisma.InputJsonValue });
      } else if (!skill.sha256) throw new AppError("conflict", "This skill has no reviewed version to enable.");
    }
    data.enabled = true;
  }
  await db().skill.update({ where: { name }, data });
  forgetSkillListings();
  return (await getSkillForAdmin(name)).skill;
}

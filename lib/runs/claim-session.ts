import { db } from "@/lib/db/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { withDatabaseRetry } from "@/lib/db/retry";
import { storableJsonText, storableText } from "@/lib/db/storable";
import { RUNNER_ID, leaseUntil } from "./run-lease";
import type { TSessionRef } from "./run-types";

/**
 * Claiming a session for a run is one statement, so two requests (or two processes) can never run
 * the same session at once, and the first step of the run is written in the same round trip:
 * - a new message or prompt (or a resume) claims an idle session: INIT, SUCCESS or FAILED → RUNNING;
 * - a message to a session paused for approval denies the pending call and claims it;
 * - the owner's decision decides the approval and claims the paused session together, so a
 *   decision is never recorded without the run that acts on it.
 * Each returns undefined when the session is not in a state that allows it (the caller says why).
 */
export type TClaim = {
  allowedTools: string[];
  allowedOrigins: string[];
  firstStep?: { id: string; seq: number };
  /** The run's first model step, written RUNNING in the claim (one round trip less to the first token). */
  modelStep?: { id: string; seq: number };
  /** The session's newest step before this run's first one (null for a new session). */
  previousStepId?: string | null;
  /** The session's run profile (a worker's or a team's, lib/agents), or null for an ordinary chat. */
  runProfile: unknown;
  /** The owner's model choice for the session ("openai:gpt-4o"), read in the same statement. */
  model: string | null;
  /** How the session began ("WEB", "CHANNEL", "JOB", "AGENT"…): capabilities may treat conversations with people differently. */
  sessionTrigger: string;
};

type TFirstStep = { type: "USER_INPUT" | "SYSTEM_NOTE"; name: string; input: unknown; parentStepId?: string };

/**
 * Idle → RUNNING, the first step, and (with `withModelStep`) the first model call's step, all in one
 * statement — refused when the owner already has `maxRunsPerUser` runs going in any process.
 */
export async function claimIdleSession(options: {
  session: TSessionRef;
  runId: string;
  title: string | null;
  step: TFirstStep;
  withModelStep: boolean;
  maxRunsPerUser: number;
}): Promise<TClaim | undefined> {
  const { session } = options;
  const now = new Date();
  const written = options.withModelStep ? 2 : 1;
  const rows = await withDatabaseRetry(
    "claim a session",
    () => rawQuery<{ id: string; seq: number; modelStepId: string | null; previousStepId: string | null; allowedTools: string[]; allowedOrigins: string[]; runProfile: unknown; model: string | null; sessionTrigger: string }>(sql`
    WITH claimed AS (
      UPDATE "chat_sessions"
      SET "status" = 'RUNNING', "statusReason" = NULL, "runnerId" = ${RUNNER_ID}, "leaseExpiresAt" = ${leaseUntil()},
          "runId" = ${options.runId}::uuid, "stopRequestedAt" = NULL, "nextSeq" = "nextSeq" + ${written}::int, "updatedAt" = ${now},
          "title" = CASE WHEN "title" = 'New chat' AND ${options.title}::text IS NOT NULL THEN ${options.title}::text ELSE "title" END
      WHERE "id" = ${session.id}::uuid AND "userId" = ${session.userId}::uuid AND "status" IN ('INIT', 'SUCCESS', 'FAILED')
        AND (SELECT count(*) FROM "chat_sessions" r WHERE r."userId" = ${session.userId}::uuid AND r."status" = 'RUNNING') < ${options.maxRunsPerUser}::int
      RETURNING "nextSeq" - ${written}::int AS seq, "allowedTools", "allowedOrigins", "runProfile", "model", "trigger"::text AS "sessionTrigger"
    ), inserted AS (
      INSERT INTO "steps" ("id", "sessionId", "userId", "seq", "type", "name", "status", "input", "startedAt", "endedAt", "parentStepId")
      SELECT gen_random_uuid(), ${session.id}::uuid, ${session.userId}::uuid, claimed.seq, ${options.step.type}::"StepType", ${options.step.name},
             'COMPLETED'::"StepStatus", ${storableJsonText(options.step.input)}::jsonb, ${now}::timestamp, ${now}::timestamp, ${options.step.parentStepId ?? null}::uuid
      FROM claimed
      UNION ALL
      SELECT gen_random_uuid(), ${session.id}::uuid, ${session.userId}::uuid, claimed.seq + 1, 'MODEL_CALL'::"StepType", 'model',
             'RUNNING'::"StepStatus", '{"iteration":1}'::jsonb, ${now}::timestamp, NULL::timestamp, NULL::uuid
      FROM claimed WHERE ${options.withModelStep}::boolean
      RETURNING "id", "seq"
    )
    SELECT (SELECT i."id" FROM inserted i WHERE i."seq" = claimed.seq) AS "id", claimed.seq,
           (SELECT i."id" FROM inserted i WHERE i."seq" = claimed.seq + 1) AS "modelStepId",
           (SELECT p."id" FROM "steps" p WHERE p."sessionId" = ${session.id}::uuid AND p."seq" = claimed.seq - 1) AS "previousStepId",
           claimed."allowedTools", claimed."allowedOrigins", claimed."runProfile", claimed."model", claimed."sessionTrigger"
    FROM claimed`),
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    allowedTools: row.allowedTools,
    allowedOrigins: row.allowedOrigins,
    firstStep: { id: row.id, seq: row.seq },
    modelStep: row.modelStepId ? { id: row.modelStepId, seq: row.seq + 1 } : undefined,
    previousStepId: row.previousStepId,
    runProfile: row.runProfile ?? null,
    model: row.model,
    sessionTrigger: row.sessionTrigger,
  };
}

/** How many runs the user has going now (for the message that refuses one more). */
export async function runningRunsOf(userId: string): Promise<number> {
  const rows = await db().$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM "chat_sessions" WHERE "userId" = ${userId}::uuid AND "status" = 'RUNNING'`;
  return rows[0]?.count ?? 0;
}

/**
 * A message while an approval is pending means "no, listen to me instead": the pending call is
 * denied with that reason, the session claimed, and the message written, all at once.
 */
export async function claimPausedForMessage(options: {
  session: TSessionRef;
  runId: string;
  /** The USER_INPUT step's input: the text (and attachments). */
  input: { text: string };
  reason: string;
}): Promise<(TClaim & { approvalId: string }) | undefined> {
  const { session } = options;
  const now = new Date();
  const rows = await withDatabaseRetry(
    "claim a paused session for a message",
    () => db().$queryRaw<{ id: string; seq: number; allowedTools: string[]; allowedOrigins: string[]; runProfile: unknown; model: string | null; sessionTrigger: string; approvalId: string }[]>`
    WITH pending AS (
      SELECT "id" FROM "approvals" WHERE "sessionId" = ${session.id}::uuid AND "userId" = ${session.userId}::uuid AND "status" = 'PENDING' LIMIT 1
    ), claimed AS (
      UPDATE "chat_sessions"
      SET "status" = 'RUNNING', "statusReason" = NULL, "runnerId" = ${RUNNER_ID}, "leaseExpiresAt" = ${leaseUntil()},
          "runId" = ${options.runId}::uuid, "stopRequestedAt" = NULL, "nextSeq" = "nextSeq" + 1, "updatedAt" = ${now}
      WHERE "id" = ${session.id}::uuid AND "userId" = ${session.userId}::uuid AND "status" = 'PAUSED' AND EXISTS (SELECT 1 FROM pending)
      RETURNING "nextSeq" - 1 AS seq, "allowedTools", "allowedOrigins", "runProfile", "model", "trigger"::text AS "sessionTrigger"
    ), denied AS (
      UPDATE "approvals" SET "status" = 'DENIED', "reason" = ${storableText(options.reason)}, "decidedAt" = ${now}, "updatedAt" = ${now}
      WHERE "id" = (SELECT "id" FROM pending) AND "status" = 'PENDING' AND EXISTS (SELECT 1 FROM claimed)
      RETURNING "id"
    ), inserted AS (
      INSERT INTO "steps" ("id", "sessionId", "userId", "seq", "type", "name", "status", "input", "startedAt", "endedAt")
      SELECT gen_random_uuid(), ${session.id}::uuid, ${session.userId}::uuid, claimed.seq, 'USER_INPUT', 'user',
             'COMPLETED', ${storableJsonText(options.input)}::jsonb, ${now}, ${now}
      FROM claimed
      RETURNING "id", "seq"
    )
    SELECT inserted."id", inserted."seq", claimed."allowedTools", claimed."allowedOrigins", claimed."runProfile", claimed."model", claimed."sessionTrigger", denied."id" AS "approvalId" FROM inserted, claimed, denied`,
  );
  const row = rows[0];
  return row
    ? { allowedTools: row.allowedTools, allowedOrigins: row.allowedOrigins, runProfile: row.runProfile ?? null, model: row.model, sessionTrigger: row.sessionTrigger, firstStep: { id: row.id, seq: row.seq }, approvalId: row.approvalId }
    : undefined;
}

/**
 * Records the owner's decision and claims the paused session in one statement. `expired`: the
 * approval outlived its deadline, so the decision is recorded as EXPIRED and acted on as a denial.
 */
export async function claimPausedForDecision(options: {
  session: TSessionRef;
  runId: string;
  approvalId: string;
  status: "APPROVED" | "DENIED" | "EXPIRED";
  reason: string | null;
  alwaysAllowTool: string | null;
  /** "Always allow this site": the origin the approved action sends data to. */
  alwaysAllowOrigin: string | null;
}): Promise<TClaim | undefined> {
  const { session } = options;
  const now = new Date();
  const rows = await withDatabaseRetry(
    "decide an approval",
    () => db().$queryRaw<{ allowedTools: string[]; allowedOrigins: string[]; runProfile: unknown; model: string | null; sessionTrigger: string }[]>`
    WITH claimed AS (
      UPDATE "chat_sessions"
      SET "status" = 'RUNNING', "statusReason" = NULL, "runnerId" = ${RUNNER_ID}, "leaseExpiresAt" = ${leaseUntil()},
          "runId" = ${options.runId}::uuid, "stopRequestedAt" = NULL, "updatedAt" = ${now},
          "allowedTools" = CASE WHEN ${options.alwaysAllowTool}::text IS NOT NULL AND NOT (${options.alwaysAllowTool}::text = ANY("allowedTools"))
                                THEN array_append("allowedTools", ${options.alwaysAllowTool}::text) ELSE "allowedTools" END,
          "allowedOrigins" = CASE WHEN ${options.alwaysAllowOrigin}::text IS NOT NULL AND NOT (${options.alwaysAllowOrigin}::text = ANY("allowedOrigins"))
                                THEN array_append("allowedOrigins", ${options.alwaysAllowOrigin}::text) ELSE "allowedOrigins" END
      WHERE "id" = ${session.id}::uuid AND "userId" = ${session.userId}::uuid AND "status" = 'PAUSED'
        AND EXISTS (SELECT 1 FROM "approvals" WHERE "id" = ${options.approvalId}::uuid AND "sessionId" = ${session.id}::uuid AND "status" = 'PENDING')
      RETURNING "allowedTools", "allowedOrigins", "runProfile", "model", "trigger"::text AS "sessionTrigger"
    ), decided AS (
      UPDATE "approvals" SET "status" = ${options.status}::"ApprovalStatus", "reason" = ${options.reason === null ? null : storableText(options.reason)}, "decidedAt" = ${now}, "updatedAt" = ${now}
      WHERE "id" = ${options.approvalId}::uuid AND "status" = 'PENDING' AND EXISTS (SELECT 1 FROM claimed)
      RETURNING "id"
    )
    SELECT claimed."allowedTools", claimed."allowedOrigins", claimed."runProfile", claimed."model", claimed."sessionTrigger" FROM claimed, decided`,
  );
  const row = rows[0];
  return row ? { allowedTools: row.allowedTools, allowedOrigins: row.allowedOrigins, runProfile: row.runProfile ?? null, model: row.model, sessionTrigger: row.sessionTrigger } : undefined;
}

/**
 * The run's end: the session leaves RUNNING with the run's outcome and is free for the next claim.
 * Written only while this run still holds the session (its runId), so a run that lost its lease to
 * another process never overwrites the new owner's state.
 */
export async function releaseSessionClaim(options: {
  session: TSessionRef;
  runId: string;
  status: "SUCCESS" | "FAILED" | "PAUSED";
  statusReason: string | null;
}): Promise<void> {
  const { session, runId, status, statusReason } = options;
  await withDatabaseRetry("record the end of a run", () =>
    rawQuery(sql`
      UPDATE "chat_sessions" SET "status" = ${status}::"ChatSessionStatus", "statusReason" = ${statusReason}::text, "runnerId" = NULL,
             "leaseExpiresAt" = NULL, "stopRequestedAt" = NULL, "updatedAt" = ${new Date()}::timestamp
      WHERE "id" = ${session.id}::uuid AND "runId" = ${runId}::uuid`),
  );
}

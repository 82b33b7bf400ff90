import { z } from "zod";
import { db } from "@/lib/db/client";
import type { ChatSession } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { closeBrowserSession } from "@/lib/browser/worker-client";
import { sandboxRuntime } from "@/lib/sandbox/runtime";

/** Chat sessions, always looked up together with their owner: another user's id is simply "not found". */
export type TSessionSummary = {
  id: string;
  title: string;
  status: "init" | "running" | "paused" | "success" | "failed";
  statusReason: string | null;
  parentSessionId: string | null;
  forkedFromStep: string | null;
  lastProvider: string | null;
  lastModel: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export const ZSessionTitle = z.string().trim().min(1, "The title cannot be empty.").max(200, "Titles are at most 200 characters.");

export function stepKey(seq: number): string {
  return `s${String(seq).padStart(4, "0")}`;
}

export function toSessionSummary(session: ChatSession): TSessionSummary {
  return {
    id: session.id,
    title: session.title,
    status: session.status.toLowerCase() as TSessionSummary["status"],
    statusReason: session.statusReason,
    parentSessionId: session.parentSessionId,
    forkedFromStep: session.forkedFromSeq ? stepKey(session.forkedFromSeq) : null,
    lastProvider: session.lastProvider,
    lastModel: session.lastModel,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

export async function createSession(options: { userId: string; title?: string }): Promise<ChatSession> {
  return db().chatSession.create({ data: { userId: options.userId, title: options.title ?? "New chat" } });
}

export async function listSessions(options: { userId: string; limit?: number }): Promise<ChatSession[]> {
  return db().chatSession.findMany({ where: { userId: options.userId }, orderBy: { updatedAt: "desc" }, take: options.limit ?? 200 });
}

export async function getSessionOrThrow(options: { userId: string; sessionId: string }): Promise<ChatSession> {
  const id = z.uuid().safeParse(options.sessionId);
  const session = id.success ? await db().chatSession.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!session) throw new AppError("not_found", "No such session.");
  return session;
}

export async function renameSession(options: { userId: string; sessionId: string; title: string }): Promise<ChatSession> {
  const session = await getSessionOrThrow(options);
  return db().chatSession.update({ where: { id: session.id }, data: { title: options.title } });
}

export async function deleteSession(options: { userId: string; sessionId: string }): Promise<void> {
  const session = await getSessionOrThrow(options);
  if (session.status === "RUNNING") throw new AppError("conflict", "This session is running. Stop it before deleting it.");
  await db().chatSession.delete({ where: { id: session.id } });
  // A remote sandbox and a browser context belong to their session and end with it.
  await sandboxRuntime().sandbox?.releaseSession(session.id);
  await closeBrowserSession({ userId: options.userId, sessionId: session.id });
}

import { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { TChannelBindingView } from "@/lib/wire/channels";
import { kindName } from "./channel-accounts";

/** A person's bindings (Settings → Channels), and the lookup every inbound message makes. */
export async function boundUserOf(options: { accountId: string; externalUserId: string }): Promise<{ id: string; instructions: string | null } | undefined> {
  const binding = await db().channelBinding.findUnique({
    where: { accountId_externalUserId: { accountId: options.accountId, externalUserId: options.externalUserId } },
    select: { user: { select: { id: true, status: true, instructions: true } } },
  });
  // A disabled account is not served, as if it were not bound.
  return binding && binding.user.status === "ACTIVE" ? { id: binding.user.id, instructions: binding.user.instructions } : undefined;
}

export async function listBindings(options: { userId: string }): Promise<TChannelBindingView[]> {
  const rows = await db().channelBinding.findMany({ where: { userId: options.userId }, orderBy: { createdAt: "asc" }, include: { account: { select: { kind: true, name: true } } } });
  return rows.map((row) => ({ id: row.id, kind: kindName(row.account.kind), accountName: row.account.name, externalUserId: row.externalUserId, createdAt: row.createdAt.toISOString() }));
}

/** Another user's binding is a 404, as if it did not exist. */
export async function deleteBinding(options: { userId: string; bindingId: string }): Promise<void> {
  const id = z.uuid().safeParse(options.bindingId);
  const deleted = id.success ? await db().channelBinding.deleteMany({ where: { id: id.data, userId: options.userId } }) : { count: 0 };
  if (!deleted.count) throw new AppError("not_found", "No such binding.");
}

import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";

const REGISTRATION_KEY = "auth.registrationOpen";

/**
 * Whether people may sign up on their own: the admin's choice, else xclaw.yaml's default.
 * Inside a transaction pass its client: the embedded database has one connection, and a query on
 * the outer client would wait for the transaction forever.
 */
export async function isRegistrationOpen(client: Prisma.TransactionClient = db()): Promise<boolean> {
  const setting = await client.setting.findUnique({ where: { key: REGISTRATION_KEY } });
  if (setting && typeof setting.value === "boolean") return setting.value;
  return getBehaviourConfig().auth.registration === "open";
}

export async function setRegistrationOpen(open: boolean): Promise<void> {
  await db().setting.upsert({
    where: { key: REGISTRATION_KEY },
    create: { key: REGISTRATION_KEY, value: open },
    update: { value: open },
  });
}

import { z } from "zod";
import { publicOrigin } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import { readBodyBytes } from "@/lib/http/request-body";
import { sendEvent } from "@/lib/jobs/send-event";
import { createLogger } from "@/lib/observability/logger";
import type { TChannelKindName } from "@/lib/wire/channels";
import { kindName, openAccount } from "./channel-accounts";
import { countRejection, forgetInboundEvent, recordInboundEvent, touchAccount } from "./inbound-events";
import { channelLabel } from "./inbound-message";
import { channelMessageEvent } from "./channel-events";
import { PLATFORMS } from "./platforms";

/**
 * A platform's callback, from request to acknowledgement: the bot account named in the URL (404
 * unknown, 403 switched off), the raw body (at most 1 MB), the platform's checks on those bytes
 * (401, counted on the account, nothing stored), then the message recorded once and its job
 * queued. Nothing here waits for the agent: the platform gets its ack after two statements.
 */
const log = createLogger("channels");

/** The most a platform sends in one callback; messages are far smaller. */
export const MAX_CALLBACK_BYTES = 1024 * 1024;

export async function receiveCallback(options: { kind: TChannelKindName; accountId: string; request: Request }): Promise<unknown> {
  const { kind, request } = options;
  const id = z.uuid().safeParse(options.accountId);
  const account = id.success ? await db().channelAccount.findUnique({ where: { id: id.data } }) : null;
  if (!account || kindName(account.kind) !== kind) throw new AppError("not_found", `No such ${channelLabel(kind)} bot.`);
  if (!account.enabled) throw new AppError("forbidden", `The ${channelLabel(kind)} bot "${account.name}" is switched off; an admin can switch it on on /admin/channels.`);
  const opened = openAccount(account);
  const body = await readBodyBytes(request, MAX_CALLBACK_BYTES);

  let outcome;
  try {
    outcome = PLATFORMS[kind].readCallback(opened, request, body);
  } catch (error) {
    if (isAppError(error) && error.code === "unauthorized") {
      await countRejection(account.id);
      log.warn("callback refused", { accountId: account.id, kind, reason: error.message });
    }
    throw error;
  }
  if (outcome.kind !== "message") {
    await touchAccount(account.id);
    return outcome.kind === "answer" ? outcome.body : outcome.ack;
  }
  const message = { ...outcome.message, webOrigin: publicOrigin() ?? new URL(request.url).origin };
  const recorded = await recordInboundEvent({ accountId: account.id, externalId: outcome.eventId, message });
  // The same message delivered again: acknowledged, and nothing runs twice.
  if (!recorded) return outcome.ack;
  try {
    await sendEvent(channelMessageEvent(recorded.id));
  } catch (error) {
    // Not queued: forget the event so the platform's next delivery of it runs (it retries a failed ack).
    await forgetInboundEvent(recorded.id);
    throw error;
  }
  return outcome.ack;
}

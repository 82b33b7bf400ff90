import { AppError } from "@/lib/errors";
import type { TInboundMessage } from "./inbound-message";

/**
 * What a platform's callback handler makes of one verified request: an answer the platform waits
 * for (QQ's op 13 validation, Feishu's url_verification), a message to run, or an event xclaw does
 * not act on. `ack` is the body the platform expects back at once.
 */
export type TCallbackOutcome =
  | { kind: "answer"; body: unknown }
  | { kind: "message"; eventId: string; message: Omit<TInboundMessage, "webOrigin">; ack: unknown }
  | { kind: "ignored"; ack: unknown };

/** A refused callback (signature, headers, timestamp, token): 401, counted on the account, nothing else stored. */
export function rejected(message: string): AppError {
  return new AppError("unauthorized", message);
}

/** Whether a signed timestamp (Unix seconds) is within the tolerance of this server's clock. */
export function isFresh(timestamp: string, toleranceSeconds: number, now = Date.now()): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(now / 1000 - Number(timestamp)) <= toleranceSeconds;
}

import { isAppError } from "@/lib/errors";
import { redeemBindingCode } from "./binding-codes";
import type { TInboundMessage } from "./inbound-message";

/**
 * `/bind <code>` from a chat: binds the sender and answers in words, naming the xclaw account so
 * the person sees they got the right one. In a group the answer is read by everyone, so it names
 * the account without its email address.
 */
export const BIND_USAGE = "Send /bind followed by the code from xclaw (Settings → Channels), e.g. /bind K7QP-M2XD.";

function maskedEmail(email: string): string {
  const [local = "", domain = ""] = email.split("@");
  return `${local.slice(0, 1)}…@${domain}`;
}

export async function bindSender(options: { accountId: string; message: TInboundMessage; code: string }): Promise<string> {
  if (!options.code.trim()) return BIND_USAGE;
  try {
    const user = await redeemBindingCode({ accountId: options.accountId, externalUserId: options.message.senderId, code: options.code });
    const who = options.message.chat === "group" ? (user.name ?? maskedEmail(user.email)) : user.name ? `${user.name} (${user.email})` : user.email;
    return `Bound: you are now the xclaw user ${who} here. Send a message to start; /help lists the commands.`;
  } catch (error) {
    if (isAppError(error) && (error.code === "bad_request" || error.code === "rate_limited")) return error.message;
    throw error;
  }
}

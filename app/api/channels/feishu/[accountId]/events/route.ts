import { receiveCallback } from "@/lib/channels/receive-callback";
import { route } from "@/lib/http/route";

/**
 * Feishu event subscription: signed, encrypted events (no user authentication: X-Lark-Signature
 * and the verification token are the authentication) → `{challenge}` or an empty ack at once; the
 * message runs as a job.
 */
export const POST = route<{ accountId: string }>(async (request, { params }) =>
  Response.json(await receiveCallback({ kind: "feishu", accountId: params.accountId, request })),
);

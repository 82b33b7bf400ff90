import { receiveCallback } from "@/lib/channels/receive-callback";
import { route } from "@/lib/http/route";

/**
 * QQ bot webhook: signed callbacks (no user authentication: the Ed25519 signature is the
 * authentication) → the op 13 answer or `{"op":12,"d":0}` at once; the message runs as a job.
 */
export const POST = route<{ accountId: string }>(async (request, { params }) =>
  Response.json(await receiveCallback({ kind: "qq", accountId: params.accountId, request })),
);

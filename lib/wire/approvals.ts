import { z } from "zod";

/**
 * The owner's Approve / Deny as POST /api/sessions/:id/approvals/:approvalId takes it: the server
 * parses the body with this schema (lib/runs/decide-approval.ts) and the chat page sends its type.
 * The one schema of lib/wire: it imports nothing but zod, and the browser imports its type only.
 */
export const ZApprovalDecision = z.strictObject({
  decision: z.enum(["approve", "deny"], { error: 'decision must be "approve" or "deny".' }),
  reason: z.string().trim().max(2_000, "The reason is at most 2,000 characters.").optional(),
  /** "Always allow this tool in this session". */
  alwaysAllow: z.boolean().optional(),
  /** "Always allow this site in this session": the site named on the card (never one from the client). */
  alwaysAllowSite: z.boolean().optional(),
});
export type TApprovalDecision = z.infer<typeof ZApprovalDecision>;

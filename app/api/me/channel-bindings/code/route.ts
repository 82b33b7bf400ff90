import { requireUser } from "@/lib/auth/authenticate";
import { createBindingCode } from "@/lib/channels/binding-codes";
import { route } from "@/lib/http/route";

/** → 201 `{code, expiresAt}`: send `/bind <code>` to a bot within ten minutes; it works once. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const { code, expiresAt } = await createBindingCode({ userId: user.id });
  return Response.json({ code, expiresAt: expiresAt.toISOString() }, { status: 201 });
});

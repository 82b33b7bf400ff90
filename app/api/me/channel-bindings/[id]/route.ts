import { requireUser } from "@/lib/auth/authenticate";
import { deleteBinding } from "@/lib/channels/bindings";
import { route } from "@/lib/http/route";

/** Unbind: that chat account is a stranger to the bot again. Another user's binding is 404. */
export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteBinding({ userId: user.id, bindingId: params.id });
  return new Response(null, { status: 204 });
});

import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { toSessionSummary } from "@/lib/sessions/sessions";
import { summarizeTitle } from "@/lib/sessions/summarize-title";

// The chat asks for this once its first reply is in: the model names the chat in a few words.
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json({ session: toSessionSummary(await summarizeTitle({ userId: user.id, sessionId: params.id })) });
});

import { z } from "zod";
import { readDelivery } from "@/lib/agents/deliveries";
import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";

/** A file a worker delivered (shared/<task>/…), for its card in the chat; the owner's only. */
const ZPath = z.string().min(1).max(1_024);

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const path = ZPath.parse(new URL(request.url).searchParams.get("path") ?? "");
  return Response.json(await readDelivery({ userId: user.id, pointer: path }));
});

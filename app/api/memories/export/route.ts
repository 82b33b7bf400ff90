import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { listMemories, toMemoryView } from "@/lib/memory/memories/memory-store";

/** GET /api/memories/export: every memory of the caller as a JSON download. */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const memories = (await listMemories({ userId: user.id, limit: 1_000_000 })).map((memory) => toMemoryView(memory));
  const body = JSON.stringify({ exportedAt: new Date().toISOString(), memories }, null, 2);
  return new Response(body, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="xclaw-memories-${new Date().toISOString().slice(0, 10)}.json"`,
    },
  });
});

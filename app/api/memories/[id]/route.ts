import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { requireId } from "@/lib/memory/ids";
import { deleteMemory, getMemoryOrThrow, toMemoryView, updateMemory } from "@/lib/memory/memories/memory-store";

const ZUpdateMemory = z
  .strictObject({
    content: z.string().min(1).max(20_000).optional(),
    tags: z.array(z.string().max(100)).max(50).optional(),
  })
  .refine((input) => input.content !== undefined || input.tags !== undefined, { message: "Send content, tags or both." });

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json({ memory: toMemoryView(await getMemoryOrThrow({ userId: user.id, id: requireId(params.id, "memory") })) });
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const id = requireId(params.id, "memory");
  const input = await readJson(request, ZUpdateMemory);
  return Response.json({ memory: toMemoryView(await updateMemory({ userId: user.id, id, content: input.content, tags: input.tags })) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteMemory({ userId: user.id, id: requireId(params.id, "memory") });
  return new Response(null, { status: 204 });
});

import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { exportSession } from "@/lib/channels/web/session-export";
import { route } from "@/lib/http/route";

const ZFormat = z.enum(["markdown", "json"], { error: 'format must be "markdown" or "json".' });

// Downloads the chat as Markdown or JSON (?format=markdown|json).
export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const format = ZFormat.parse(new URL(request.url).searchParams.get("format") ?? "markdown");
  const exported = await exportSession({ userId: user.id, sessionId: params.id, format });
  return new Response(exported.body, {
    headers: {
      "content-type": exported.contentType,
      "content-disposition": `attachment; filename="${exported.fileName.replace(/[^\x20-\x7e]|"/g, "_")}"; filename*=UTF-8''${encodeURIComponent(exported.fileName)}`,
    },
  });
});

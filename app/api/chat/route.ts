import { receiveChatMessage } from "@/lib/channels/web/chat-request";
import { messageResultResponse } from "@/lib/channels/web/web-channel";
import { route } from "@/lib/http/route";

// Streams for as long as the run takes; the run itself survives a disconnect.
export const maxDuration = 800;

// A production server answers this route before Next.js does (lib/channels/web/serve-chat.ts, the
// same steps with less memory per open stream); this handler serves development and tests.
export const POST = route(async (request) => messageResultResponse(await receiveChatMessage(request), request.signal));

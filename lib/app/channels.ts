import type { TNodeRoute } from "@/lib/http/server-hook";
import { serveChat } from "@/lib/channels/web/serve-chat";

/**
 * The channels' routes that a production server answers before Next.js (lib/http/server-hook.ts
 * says why): today the web chat's POST /api/chat. A channel whose requests must be answered
 * without Next.js's per-request cost adds its route here.
 */
export function channelNodeRoutes(): Record<string, TNodeRoute> {
  return { "POST /api/chat": serveChat };
}

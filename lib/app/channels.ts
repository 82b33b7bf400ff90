import type { TNodeRoute } from "@/lib/http/server-hook";
import { serveChat } from "@/lib/channels/web/serve-chat";
import { withChannelSpans } from "@/lib/telemetry/channel-spans";

/**
 * The channels' routes that a production server answers before Next.js (lib/http/server-hook.ts
 * says why): today the web chat's POST /api/chat. A channel whose requests must be answered
 * without Next.js's per-request cost adds its route here. Each is traced as a channel span when
 * traces are on (lib/telemetry/channel-spans.ts).
 */
export function channelNodeRoutes(): Record<string, TNodeRoute> {
  return withChannelSpans({ "POST /api/chat": serveChat }, "web");
}

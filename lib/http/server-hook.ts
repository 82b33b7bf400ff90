import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { sendWebResponse } from "./node-exchange";
import { toErrorResponse } from "./route";

/**
 * What happens to a request in the Next.js server process before Next.js sees it. Installed once
 * from instrumentation.ts by wrapping `emit` of Node's HTTP(S) servers, so it runs before any
 * listener:
 *
 * 1. `prepare` runs on every request and upgrade: instrumentation.ts stamps the TCP peer address
 *    (lib/auth/client-ip.ts).
 * 2. A request for one of the Node routes is answered here and never reaches Next.js. That is for
 *    a route whose cost per open request matters: Next.js holds about 90 KB per open streaming
 *    request even for a handler that does nothing (ARCHITECTURE.md, "Under load"), and a chat
 *    stream stays open for as long as the model takes. A Node route runs the same steps as its
 *    route handler, which stays in place for development and tests.
 */
export type TNodeRoute = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

const log = createLogger("http");

// One hook and one route table per process, whichever module graph installs it (Next.js loads
// instrumentation and route handlers as separate graphs); routes is set once the hook is installed.
const shared = processSingleton("http.server-hook", (): { routes?: Map<string, TNodeRoute> } => ({}));

export type TServerHookOptions = {
  prepare: (incoming: IncomingMessage) => void;
  /** "POST /api/chat" → the route that answers it. */
  routes?: Record<string, TNodeRoute>;
};

/** The Node route for a request: matched on method and exact path (a query string is ignored). */
function nodeRouteFor(routes: Map<string, TNodeRoute>, incoming: IncomingMessage): TNodeRoute | undefined {
  if (!routes.size || !incoming.url) return undefined;
  const query = incoming.url.indexOf("?");
  return routes.get(`${incoming.method} ${query < 0 ? incoming.url : incoming.url.slice(0, query)}`);
}

function answer(route: TNodeRoute, incoming: IncomingMessage, outgoing: ServerResponse): void {
  route(incoming, outgoing).catch((error: unknown) => {
    // The route turns its own errors into answers; this is for a failure while writing one: the
    // route wrapper's logged, generic 500 if nothing was sent yet, else the connection is cut.
    if (!outgoing.headersSent) void sendWebResponse(outgoing, toErrorResponse(error));
    else {
      log.error("node route failed mid-answer", { path: incoming.url, error });
      outgoing.destroy();
    }
  });
}

/** Installed once per process; a later call only adds its routes to those already installed. */
export function installServerHook({ prepare, routes = {} }: TServerHookOptions): void {
  if (shared.routes) {
    for (const [key, route] of Object.entries(routes)) shared.routes.set(key, route);
    return;
  }
  const table = new Map(Object.entries(routes));
  shared.routes = table;
  for (const Server of [http.Server, https.Server]) {
    const original = Server.prototype.emit;
    Server.prototype.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]) {
      if (event === "request" || event === "upgrade") prepare(args[0] as IncomingMessage);
      if (event === "request") {
        const route = nodeRouteFor(table, args[0] as IncomingMessage);
        if (route) {
          answer(route, args[0] as IncomingMessage, args[1] as ServerResponse);
          return true;
        }
      }
      return original.apply(this, [event, ...args] as Parameters<typeof original>);
    } as typeof original;
  }
}

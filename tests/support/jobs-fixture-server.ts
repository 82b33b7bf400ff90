import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP fixture that job steps report to, so that effects are counted outside the process
 * that runs the step (a worker may be killed, several may run at once):
 *
 * - POST /hit {key}                → counts calls per key, returns {count}
 * - POST /span {key, phase}        → records "start"/"end" of work in arrival order (overlap check)
 * - POST /block {key}              → the first call per key is held open until release(key) (or
 *                                    the caller dies); later calls return at once
 */
export type TFixtureServer = {
  url: string;
  count(key: string): number;
  /** When the first /hit for key arrived (ms since the epoch), if it did. */
  firstHitAt(key: string): number | undefined;
  /** Resolves when the first /block call for key arrives. */
  blocked(key: string): Promise<void>;
  release(key: string): void;
  /** The most spans with this key that were open at once. */
  maxOverlap(key: string): number;
  spans(key: string): { phase: "start" | "end"; id: string; worker: number }[];
  close(): Promise<void>;
};

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

export async function startFixtureServer(): Promise<TFixtureServer> {
  const counts = new Map<string, number>();
  const firstHits = new Map<string, number>();
  const spans = new Map<string, { phase: "start" | "end"; id: string; worker: number }[]>();
  const blockWaiters = new Map<string, () => void>();
  const blockArrived = new Map<string, Promise<void>>();
  const released = new Set<string>();
  const held = new Map<string, ServerResponse>();

  function arrived(key: string): Promise<void> {
    if (!blockArrived.has(key)) blockArrived.set(key, new Promise((resolve) => blockWaiters.set(key, resolve)));
    return blockArrived.get(key)!;
  }

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const key = String(body.key ?? "");
    const reply = (value: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (request.url === "/hit") {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (!firstHits.has(key)) firstHits.set(key, Date.now());
      return reply({ count: counts.get(key) });
    }
    if (request.url === "/span") {
      spans.set(key, [...(spans.get(key) ?? []), { phase: body.phase as "start" | "end", id: String(body.id ?? ""), worker: Number(body.worker) }]);
      return reply({ ok: true });
    }
    if (request.url === "/block") {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      void arrived(key);
      const first = counts.get(key) === 1;
      blockWaiters.get(key)?.();
      if (first && !released.has(key)) {
        held.set(key, response);
        return;
      }
      return reply({ count: counts.get(key) });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (key) => counts.get(key) ?? 0,
    firstHitAt: (key) => firstHits.get(key),
    blocked: (key) => arrived(key),
    release(key) {
      released.add(key);
      const response = held.get(key);
      held.delete(key);
      if (response && !response.destroyed) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ count: counts.get(key) }));
      }
    },
    maxOverlap(key) {
      let open = 0;
      let max = 0;
      for (const span of spans.get(key) ?? []) {
        open += span.phase === "start" ? 1 : -1;
        max = Math.max(max, open);
      }
      return max;
    },
    spans: (key) => spans.get(key) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held.values()) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

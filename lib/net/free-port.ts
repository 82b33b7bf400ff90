import { readFileSync } from "node:fs";
import net from "node:net";

/**
 * A port that was free a moment ago, for a server that cannot listen on port 0 and report the port
 * it got (`next start`, the browser worker): the caller listens on it a little later.
 *
 * It is taken from below the kernel's ephemeral range. Every `listen(0)` and outgoing connection
 * gets its port from that range, so a port chosen inside it can be handed to another server that
 * starts in between — in CI a second app's plugin host took the first app's Next.js port that
 * way, and the first app failed with EADDRINUSE. Outside the range only another explicit choice
 * can take it. The check listens on every interface, as Next.js does.
 */
const LOWEST = 20_000;
const TRIES = 50;

/** The first port of the kernel's ephemeral range (Linux; 32768 elsewhere, below macOS's 49152). */
function ephemeralRangeStart(): number {
  try {
    const first = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" || error.code === "EACCES" ? resolve(undefined) : reject(error)));
    server.listen(port, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  const end = ephemeralRangeStart();
  if (end - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const port = await tryListen(LOWEST + Math.floor(Math.random() * (end - LOWEST)));
      if (port) return port;
    }
  }
  // A machine whose ephemeral range starts low, or a busy one: any port the kernel has free.
  const port = await tryListen(0);
  if (!port) throw new Error("no free port");
  return port;
}

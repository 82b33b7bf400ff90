import { readFileSync } from "node:fs";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "@/lib/net/free-port";

const held: net.Server[] = [];

function hold(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, () => resolve());
    held.push(server);
  });
}

afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("freePort", () => {
  it("chooses below the kernel's ephemeral range, so a server listening on port 0 meanwhile cannot take it", async () => {
    const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
      // The caller can listen on it on every interface, as Next.js does (held until the end).
      await hold(port);
    }
  });
});

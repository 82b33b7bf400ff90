import { createRequire } from "node:module";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { parseEnvironment } from "@/lib/config/environment";
import { developmentOrigins } from "@/lib/http/dev-origins";

// Next.js's own check of dev resources (what left pages opened on 127.0.0.1 or the LAN inert).
const { blockCrossSiteDEV } = createRequire(import.meta.url)("next/dist/server/lib/router-utils/block-cross-site-dev.js") as {
  blockCrossSiteDEV: (request: unknown, response: unknown, allowed: string[] | undefined, hostname: string | undefined) => boolean;
};

function blocked(origin: string, allowed: string[] | undefined): boolean {
  const response = { statusCode: 200, end: () => {} };
  return blockCrossSiteDEV({ url: "/_next/static/chunks/app.js", headers: { origin, "sec-fetch-mode": "cors", "sec-fetch-site": "same-origin" } }, response, allowed, undefined);
}

describe("development origins", () => {
  const lan = Object.values(os.networkInterfaces()).flat().find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;

  it("lets the dev server's resources load on 127.0.0.1, the host name, the LAN address and XCLAW_DEV_ORIGINS", () => {
    const origins = developmentOrigins(parseEnvironment({ XCLAW_DEV_ORIGINS: "devbox.local, *.preview.test" }).XCLAW_DEV_ORIGINS);
    expect(blocked("http://127.0.0.1:3000", undefined)).toBe(true);
    expect(blocked("http://127.0.0.1:3000", origins)).toBe(false);
    expect(blocked(`http://${os.hostname()}:3000`, origins)).toBe(false);
    if (lan) expect(blocked(`http://${lan}:3000`, origins)).toBe(false);
    expect(blocked("http://devbox.local:3000", origins)).toBe(false);
    expect(blocked("http://a.preview.test:3000", origins)).toBe(false);
    expect(blocked("http://evil.example:3000", origins)).toBe(true);
  });
});

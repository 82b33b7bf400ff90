import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { assertPublicUrl } from "@/lib/net/assert-public-url";
import { guardedFetch } from "@/lib/net/guarded-fetch";

/**
 * The SSRF guard for server-side HTTP (lib/net) against real local servers. Every fixture listens
 * on loopback, which the guard refuses unless a test allow-lists it; made-up .test names resolve
 * through the test's own DNS, as an attacker's DNS would answer.
 */
type TServer = { url: string; port: number; hits: { method: string; path: string; host: string; authorization?: string; body: string }[]; close: () => Promise<void> };

async function startServer(address: string, port = 0, handler?: (request: http.IncomingMessage, response: http.ServerResponse) => boolean): Promise<TServer> {
  const hits: TServer["hits"] = [];
  const server = http.createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    hits.push({ method: request.method ?? "", path: request.url ?? "", host: request.headers.host ?? "", authorization: request.headers.authorization, body });
    if (handler?.(request, response)) return;
    const url = new URL(request.url ?? "/", "http://fixture");
    if (url.pathname === "/redirect") {
      response.writeHead(Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("to") ?? "/" }).end();
      return;
    }
    if (url.pathname === "/loop") {
      response.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` }).end();
      return;
    }
    if (url.pathname === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      // Written in pieces without a content-length, so only counting the body can catch it.
      for (let index = 0; index < 64; index++) response.write("x".repeat(1024));
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "text/plain" }).end(`hello from ${address}, ${request.method} ${url.pathname}${body ? ` with ${body}` : ""}`);
  });
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => resolve());
  });
  const actual = (server.address() as net.AddressInfo).port;
  return {
    url: `http://${address}:${actual}`,
    port: actual,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let allowed: TServer;
let secret: TServer;
let lookups: string[] = [];
const lookup = async (host: string) => {
  lookups.push(host);
  if (host === "public.test") return ["93.184.216.34"];
  if (host === "rebind.test") return ["127.0.0.1"];
  if (host === "mixed.test") return ["93.184.216.34", "10.0.0.7"];
  if (host === "metadata.test") return ["169.254.169.254"];
  if (host === "pinned.test") return lookups.filter((name) => name === host).length === 1 ? ["127.0.0.1"] : ["127.0.0.2"];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};

beforeAll(async () => {
  allowed = await startServer("127.0.0.1");
  secret = await startServer("127.0.0.1");
});
afterAll(async () => {
  await allowed?.close();
  await secret?.close();
});
beforeEach(() => {
  allowed.hits.length = 0;
  secret.hits.length = 0;
  lookups = [];
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("assertPublicUrl", () => {
  it.each([
    ["a loopback address", () => `${secret.url}/hook`, "127.0.0.1 is a loopback address"],
    ["a loopback name", () => `http://localhost:${secret.port}/hook`, "localhost is a loopback name"],
    ["a name that resolves to loopback", () => `http://rebind.test:${secret.port}/hook`, "rebind.test resolves to 127.0.0.1, a loopback address"],
    ["a name with one private address among public ones", () => "https://mixed.test/hook", "mixed.test resolves to 10.0.0.7, a private address"],
    ["the metadata service", () => "http://metadata.test/latest/meta-data/", "a link-local address"],
    ["a mapped IPv6 loopback", () => "http://[::ffff:127.0.0.1]/", "a loopback address"],
  ])("refuses %s with a clear message", async (_name, url, reason) => {
    const error = await refusal(assertPublicUrl(url(), { lookup }));
    expect(error.code).toBe("bad_request");
    expect(error.message).toContain(reason);
    expect(error.message).toContain("Only public addresses can be reached");
  });

  it("refuses what is not an http(s) URL, and names no path or query in its messages", async () => {
    expect((await refusal(assertPublicUrl("file:///etc/passwd"))).message).toBe("file: URLs are not allowed; only http and https are");
    expect((await refusal(assertPublicUrl("not a url"))).message).toContain("is not a valid URL");
    const error = await refusal(assertPublicUrl(`${secret.url}/hook?token=s3cret`, { lookup }));
    expect(error.message).not.toContain("s3cret");
    expect((await refusal(assertPublicUrl("http://nowhere.test/", { lookup }))).message).toBe("http://nowhere.test cannot be reached: nowhere.test could not be resolved (ENOTFOUND).");
  });

  it("passes public hosts and allow-listed private ones", async () => {
    expect((await assertPublicUrl("https://public.test/hook", { lookup })).href).toBe("https://public.test/hook");
    expect((await assertPublicUrl(`${allowed.url}/hook`, { allowedPrivateHosts: [`127.0.0.1:${allowed.port}`] })).port).toBe(String(allowed.port));
    await refusal(assertPublicUrl(`${secret.url}/hook`, { allowedPrivateHosts: [`127.0.0.1:${allowed.port}`] }));
  });
});

describe("guardedFetch", () => {
  it("refuses loopback unless it is allow-listed, and then fetches", async () => {
    const error = await refusal(guardedFetch(`${allowed.url}/hello`));
    expect(error.message).toContain("127.0.0.1 is a loopback address");
    expect(allowed.hits).toEqual([]);
    const response = await guardedFetch(`${allowed.url}/hello`, { allowedPrivateHosts: [`127.0.0.1:${allowed.port}`] });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${allowed.url}/hello`);
    expect(await response.text()).toBe("hello from 127.0.0.1, GET /hello");
  });

  it("refuses a hostname that resolves to 127.0.0.1 before sending anything", async () => {
    const error = await refusal(guardedFetch(`http://rebind.test:${secret.port}/secret`, { lookup }));
    expect(error.message).toContain("rebind.test resolves to 127.0.0.1, a loopback address");
    expect(secret.hits).toEqual([]);
  });

  it.each([
    ["a private address", () => `${secret.url}/secret`],
    ["a loopback name", () => `http://localhost:${secret.port}/secret`],
    ["a name that resolves to loopback", () => `http://rebind.test:${secret.port}/secret`],
    ["the metadata service", () => "http://169.254.169.254/latest/meta-data/"],
  ])("refuses a redirect to %s", async (_name, target) => {
    const allowedPrivateHosts = [`127.0.0.1:${allowed.port}`];
    const error = await refusal(guardedFetch(`${allowed.url}/redirect?to=${encodeURIComponent(target())}`, { allowedPrivateHosts, lookup }));
    expect(error.message).toMatch(new RegExp(`^Refused a redirect from ${allowed.url.replace(/\./g, "\\.")}: .* is not allowed`));
    expect(allowed.hits.map((hit) => hit.path)).toEqual([`/redirect?to=${encodeURIComponent(target())}`]);
    expect(secret.hits).toEqual([]);
  });

  it("connects to the address it checked, not to a second DNS answer", async () => {
    // pinned.test answers 127.0.0.1 first and 127.0.0.2 afterwards; only 127.0.0.1 is allowed.
    const rebound = await startServer("127.0.0.2", allowed.port).catch(() => undefined);
    try {
      const response = await guardedFetch(`http://pinned.test:${allowed.port}/pinned`, { allowedPrivateHosts: ["127.0.0.1/32"], lookup });
      expect(await response.text()).toBe("hello from 127.0.0.1, GET /pinned");
      expect(allowed.hits).toEqual([expect.objectContaining({ path: "/pinned", host: `pinned.test:${allowed.port}` })]);
      expect(lookups).toEqual(["pinned.test"]);
      expect(rebound?.hits ?? []).toEqual([]);
    } finally {
      await rebound?.close();
    }
  });

  it("follows safe redirects (at most 5) with the fetch rules for methods, bodies and credentials", async () => {
    const allowedPrivateHosts = [`127.0.0.1:${allowed.port}`, `127.0.0.1:${secret.port}`];
    const seeOther = await guardedFetch(`${allowed.url}/redirect?status=303&to=/done`, { method: "POST", body: "a=1", allowedPrivateHosts });
    expect(await seeOther.text()).toBe("hello from 127.0.0.1, GET /done");
    expect(seeOther.redirected).toBe(true);
    const temporary = await guardedFetch(`${allowed.url}/redirect?status=307&to=/again`, { method: "POST", body: new URLSearchParams({ b: "2" }), allowedPrivateHosts });
    expect(await temporary.text()).toBe("hello from 127.0.0.1, POST /again with b=2");
    await guardedFetch(`${allowed.url}/redirect?to=${encodeURIComponent(`${secret.url}/elsewhere`)}`, { headers: { authorization: "Bearer for-allowed-only" }, allowedPrivateHosts });
    expect(allowed.hits[allowed.hits.length - 1]!.authorization).toBe("Bearer for-allowed-only");
    expect(secret.hits).toEqual([expect.objectContaining({ path: "/elsewhere", authorization: undefined })]);
    const loop = await refusal(guardedFetch(`${allowed.url}/loop`, { allowedPrivateHosts }));
    expect(loop.message).toContain("redirected more than 5 times");
    expect(allowed.hits.filter((hit) => hit.path.startsWith("/loop"))).toHaveLength(6);
    const manual = await guardedFetch(`${allowed.url}/redirect?to=/x`, { redirect: "manual", allowedPrivateHosts });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/x");
  });

  it("keeps to allowedHosts on every hop", async () => {
    const allowedPrivateHosts = [`127.0.0.1:${allowed.port}`, `127.0.0.1:${secret.port}`];
    const error = await refusal(
      guardedFetch(`${allowed.url}/redirect?to=${encodeURIComponent(`${secret.url}/elsewhere`)}`, { allowedPrivateHosts, allowedHosts: [`127.0.0.1:${allowed.port}`] }),
    );
    expect(error.message).toContain(`${secret.url} is not one of the hosts this request may reach`);
    expect(secret.hits).toEqual([]);
  });

  it("stops reading a body beyond maxResponseBytes", async () => {
    const allowedPrivateHosts = [`127.0.0.1:${allowed.port}`];
    const response = await guardedFetch(`${allowed.url}/big`, { allowedPrivateHosts, maxResponseBytes: 10_000 });
    const error = await refusal(response.text());
    expect(error.code).toBe("payload_too_large");
    expect((await guardedFetch(`${allowed.url}/big`, { allowedPrivateHosts, maxResponseBytes: 100_000 }).then((small) => small.text())).length).toBe(65_536);
  });

  it("reports a server that does not answer in time as unavailable", async () => {
    const silent = await startServer("127.0.0.1", 0, () => true);
    try {
      const error = await refusal(guardedFetch(`${silent.url}/slow`, { allowedPrivateHosts: [`127.0.0.1:${silent.port}`], timeoutMs: 300 }));
      expect(error).toMatchObject({ code: "unavailable", message: `${silent.url} did not answer within 300 ms.` });
    } finally {
      await silent.close();
    }
  });
});

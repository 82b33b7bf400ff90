import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFetch } from "@/lib/net/server-fetch";
import { classifyError } from "@/lib/providers/provider-chain";

/** The providers' fetch: plain requests go through; a redirect is a clear, non-retryable error. */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith("/moved")) {
      response.writeHead(308, { location: "/v1/chat/completions" });
      return response.end();
    }
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ echoed: JSON.parse(body) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("serverFetch", () => {
  it("sends a POST with its body as it is", async () => {
    const response = await serverFetch(`${base}/v1/echo`, { method: "POST", body: JSON.stringify({ hello: "world" }) });
    expect(await response.json()).toEqual({ echoed: { hello: "world" } });
  });

  it("answers a redirect with a 400 that says to use the final address, which the SDK reports and the chain does not retry", async () => {
    const client = new OpenAI({ apiKey: "test", baseURL: `${base}/moved`, maxRetries: 0, fetch: serverFetch });
    const failure = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect((failure as { status?: number }).status).toBe(400);
    expect((failure as Error).message).toMatch(/answered with a redirect.*set the provider's base URL to the address it redirects to/);
    expect(classifyError(failure).retryable).toBe(false);
  });
});

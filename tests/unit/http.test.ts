import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { clientIp } from "@/lib/auth/client-ip";
import { readSessionCookie } from "@/lib/auth/session-token";
import { AppError } from "@/lib/errors";
import { readJson, route } from "@/lib/http/route";

const context = { params: Promise.resolve({}) };

describe("route wrapper", () => {
  afterEach(() => vi.restoreAllMocks());

  it("maps AppError to its status, code and headers", async () => {
    const handler = route(async () => {
      throw new AppError("rate_limited", "Slow down.", { headers: { "retry-after": "7" } });
    });
    const response = await handler(new Request("http://x/api/y"), context);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toEqual({ error: { code: "rate_limited", message: "Slow down." } });
  });

  it("maps zod errors to 400 naming the field", async () => {
    const handler = route(async (request) => Response.json(await readJson(request, z.object({ count: z.number() }))));
    const response = await handler(
      new Request("http://x/api/y", { method: "POST", headers: { "content-type": "application/json" }, body: '{"count":"x"}' }),
      context,
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe("count: Invalid input: expected number, received string");
  });

  it("hides unexpected errors behind a generic 500 and logs them", async () => {
    const errors: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    const previous = process.env.XCLAW_LOG_SILENT;
    delete process.env.XCLAW_LOG_SILENT;
    const handler = route(async () => {
      throw new Error("connection string postgres://user:pw@db leaked?");
    });
    try {
      const response = await handler(new Request("http://x/api/y"), context);
      expect(response.status).toBe(500);
      const body = await response.json();
      expect(body.error.code).toBe("internal");
      expect(JSON.stringify(body)).not.toContain("postgres://");
    } finally {
      if (previous !== undefined) process.env.XCLAW_LOG_SILENT = previous;
    }
    expect(errors.join("")).toContain("unhandled error");
  });

  it("keeps a well-formed incoming request id and replaces a malformed one", async () => {
    const handler = route(async () => new Response("ok"));
    const kept = await handler(new Request("http://x/", { headers: { "x-request-id": "abc-123" } }), context);
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await handler(new Request("http://x/", { headers: { "x-request-id": "<script>" } }), context);
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("requires a JSON content type", async () => {
    const handler = route(async (request) => Response.json(await readJson(request, z.object({}))));
    const response = await handler(new Request("http://x/", { method: "POST", body: "{}" }), context);
    expect((await response.json()).error.message).toBe("Send a JSON body with `Content-Type: application/json`.");
  });
});

describe("client IP", () => {
  afterEach(() => {
    delete process.env.XCLAW_TRUSTED_PROXIES;
  });

  it("takes the address Next.js appended, not one the client wrote", () => {
    expect(clientIp(new Headers({ "x-forwarded-for": "1.1.1.1, 10.0.0.5" }))).toBe("10.0.0.5");
  });

  it("skips trusted proxies", () => {
    process.env.XCLAW_TRUSTED_PROXIES = "1";
    expect(clientIp({ "x-forwarded-for": "1.1.1.1, 203.0.113.4, 10.0.0.1" })).toBe("203.0.113.4");
  });
});

describe("session cookie", () => {
  it("reads a plain and a chunked next-auth cookie", () => {
    expect(readSessionCookie("a=1; next-auth.session-token=abc%2Bd; b=2")).toBe("abc+d");
    expect(readSessionCookie("next-auth.session-token.0=abc; next-auth.session-token.1=def")).toBe("abcdef");
    expect(readSessionCookie("other=1")).toBeUndefined();
    expect(readSessionCookie(null)).toBeUndefined();
  });
});

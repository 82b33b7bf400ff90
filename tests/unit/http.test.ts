import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { clientIp, PEER_ADDRESS_HEADER, peerAddressHeaderValue } from "@/lib/auth/client-ip";
import { readSessionCookie } from "@/lib/auth/session-token";
import { parseEnvironment, resetEnvironment } from "@/lib/config/environment";
import { AppError } from "@/lib/errors";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { isJsonMediaType, parseMediaType } from "@/lib/http/request-body";
import { readJson, route } from "@/lib/http/route";
import { readUpload } from "@/lib/memory/knowledge/read-upload";

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
    resetEnvironment();
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
      resetEnvironment();
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

  it("marks private API answers as not cacheable, unless the handler chose its own policy", async () => {
    const plain = await route(async () => Response.json({ secret: 1 }))(new Request("http://x/api/y"), context);
    expect(plain.headers.get("cache-control")).toBe("no-store");
    const failed = await route(async () => {
      throw new AppError("not_found", "No such thing.");
    })(new Request("http://x/api/y"), context);
    expect(failed.headers.get("cache-control")).toBe("no-store");
    const own = await route(async () => Response.json({}, { headers: { "cache-control": "public, max-age=60" } }))(new Request("http://x/api/y"), context);
    expect(own.headers.get("cache-control")).toBe("public, max-age=60");
  });
});

describe("media types", () => {
  it("reads a tricky header: any case, spaces around parts, quoted strings with escapes and semicolons", () => {
    const media = parseMediaType('Multipart/Form-Data ;  Boundary="a;b\\"c d" ; CHARSET=UTF-8;boundary=second');
    expect(media?.type).toBe("multipart/form-data");
    // The first of a repeated parameter counts; names are compared in lower case, values kept as sent.
    expect({ ...media?.parameters }).toEqual({ boundary: 'a;b"c d', charset: "UTF-8" });
    expect(parseMediaType(null)).toBeUndefined();
    expect(parseMediaType("")).toBeUndefined();
  });

  it("tells JSON from look-alikes by the whole type and the charset", () => {
    for (const header of ["application/json", '  APPLICATION/JSON ; Charset="utf8"', "application/vnd.api+json; charset=UTF-8", 'application/json; foo="x;charset=latin1"']) {
      expect(isJsonMediaType(header), header).toBe(true);
    }
    for (const header of ['text/plain; charset="application/json"', "application/json; charset=latin1", 'application/json; charset="utf-16"', "application/json-seq", "application/jsonp", "json", "application /json", undefined]) {
      expect(isJsonMediaType(header), header).toBe(false);
    }
  });

  it("takes an upload whose boundary is a quoted string, and refuses other types with 415", async () => {
    const body = ["--a;b c", 'Content-Disposition: form-data; name="file"; filename="notes.txt"', "Content-Type: text/plain", "", "hello", "--a;b c--", ""].join("\r\n");
    const upload = (type: string) => readUpload(new Request("http://x/api/knowledge", { method: "POST", headers: { "content-type": type }, body }), 1_000);
    const read = await upload('MULTIPART/form-data; BOUNDARY="a;b c"');
    expect({ filename: read.filename, text: new TextDecoder().decode(read.bytes) }).toEqual({ filename: "notes.txt", text: "hello" });
    for (const type of ['text/plain; boundary="a;b c"', "multipart/form-data", 'multipart/mixed; boundary="a;b c"']) {
      await expect(upload(type), type).rejects.toMatchObject({ code: "unsupported_media_type" });
    }
  });
});

describe("JSON bodies", () => {
  const echo = route(async (request) => Response.json(await readJson(request, z.unknown())));
  const post = (body: BodyInit, headers: Record<string, string> = { "content-type": "application/json" }) =>
    echo(new Request("http://x/api/y", { method: "POST", headers, body, duplex: "half" } as RequestInit), context);

  it("accepts application/json with parameters in any case, and +json types", async () => {
    for (const type of ["application/json", "Application/JSON; charset=UTF-8", 'application/json;charset="utf-8"', "application/merge-patch+json"]) {
      const response = await post('{"a":1}', { "content-type": type });
      expect(response.status, type).toBe(200);
      expect(await response.json()).toEqual({ a: 1 });
    }
  });

  it("refuses other media types with 415, also when a parameter mentions JSON (no CORS preflight for text/plain)", async () => {
    for (const type of ["text/plain;charset=application/json", "text/plain; application/json", "application/jsonx", "application/x-www-form-urlencoded", "multipart/form-data; boundary=application/json", "application/json; charset=latin1", "application /json"]) {
      const response = await post('{"a":1}', { "content-type": type });
      expect(response.status, type).toBe(415);
      expect((await response.json()).error).toEqual({ code: "unsupported_media_type", message: "Send a JSON body with `Content-Type: application/json`." });
    }
    const missing = await echo(new Request("http://x/api/y", { method: "POST", body: "{}" }), context);
    expect(missing.status).toBe(415);
  });

  it("refuses a body whose Content-Length is over the limit before reading any of it", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    }, { highWaterMark: 0 });
    const limit = getBehaviourConfig().http.maxJsonBytes;
    const response = await post(body, { "content-type": "application/json", "content-length": String(limit + 1) });
    expect(response.status).toBe(413);
    expect((await response.json()).error).toEqual({ code: "payload_too_large", message: "The request body is larger than the limit of 1 MiB." });
    expect(pulled).toBe(0);
  });

  it("stops reading a body without Content-Length as soon as it passes the limit", async () => {
    const limit = getBehaviourConfig().http.maxJsonBytes;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const total = 16 * 1024 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
        if (sent >= total) controller.close();
      },
    }, { highWaterMark: 0 });
    const response = await post(body);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large");
    expect(sent).toBeLessThanOrEqual(limit + 2 * chunk.byteLength);
  });

  it("accepts a body of exactly the limit", async () => {
    const limit = getBehaviourConfig().http.maxJsonBytes;
    const text = `"${"a".repeat(limit - 2)}"`;
    const response = await post(text);
    expect(response.status).toBe(200);
    expect((await response.json()).length).toBe(limit - 2);
  });

  it("refuses NUL characters and lone surrogates anywhere in the body with a 400 that names the field", async () => {
    const cases: [string, string][] = [
      ['{"name":"a\\u0000b"}', "name contains a character that is not allowed (U+0000 or an unpaired surrogate)."],
      ['{"items":[{"text":"ok"},{"text":"x\\ud800"}]}', "items[1].text contains a character that is not allowed (U+0000 or an unpaired surrogate)."],
      ['{"deep":{"\\udc00key":1}}', "A field name in deep contains a character that is not allowed (U+0000 or an unpaired surrogate)."],
      ['"\\u0000"', "The request body contains a character that is not allowed (U+0000 or an unpaired surrogate)."],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect((await response.json()).error, body).toEqual({ code: "bad_request", message });
    }
    // A correctly paired surrogate (an emoji) is fine, escaped or not.
    const emoji = await post('{"name":"\\ud83d\\ude00 😀"}');
    expect(emoji.status).toBe(200);
  });

  it("walks deeply nested bodies without overflowing the stack", async () => {
    const depth = 100_000;
    const response = await post("[".repeat(depth) + '"\\u0000"' + "]".repeat(depth));
    expect(response.status).toBe(400);
  });

  it("says so when the body is not JSON or not UTF-8", async () => {
    const broken = await post("{nope");
    expect((await broken.json()).error).toEqual({ code: "bad_request", message: "The request body is not valid JSON." });
    const latin1 = await post(new Uint8Array([0x22, 0xe9, 0x22]));
    expect(latin1.status).toBe(400);
  });
});

describe("client IP", () => {
  afterEach(() => {
    delete process.env.XCLAW_TRUSTED_PROXIES;
    resetEnvironment();
  });

  const peer = (address: string) => ({ [PEER_ADDRESS_HEADER]: peerAddressHeaderValue(address) });

  it("uses the socket address and ignores forwarding headers when no proxy is trusted", () => {
    const headers = new Headers({ ...peer("127.0.0.2"), "x-forwarded-for": "203.0.113.9, 127.0.0.3", "x-real-ip": "198.51.100.7" });
    expect(clientIp(headers)).toBe("127.0.0.2");
    process.env.XCLAW_TRUSTED_PROXIES = "0";
    resetEnvironment();
    expect(clientIp(headers)).toBe("127.0.0.2");
  });

  it("is unknown (never a client-chosen value) without a genuine socket address", () => {
    expect(clientIp(new Headers({ "x-forwarded-for": "203.0.113.9", "x-real-ip": "198.51.100.7" }))).toBeUndefined();
    // The header is only believed with this process's secret; a client cannot forge it.
    expect(clientIp(new Headers({ [PEER_ADDRESS_HEADER]: "forged 203.0.113.9" }))).toBeUndefined();
    expect(clientIp(new Headers({ [PEER_ADDRESS_HEADER]: "203.0.113.9" }))).toBeUndefined();
  });

  it("takes the N-th X-Forwarded-For entry from the right with N trusted proxies", () => {
    process.env.XCLAW_TRUSTED_PROXIES = "1";
    resetEnvironment();
    expect(clientIp({ ...peer("10.0.0.1"), "x-forwarded-for": "1.1.1.1, 203.0.113.4" })).toBe("203.0.113.4");
    process.env.XCLAW_TRUSTED_PROXIES = "2";
    resetEnvironment();
    expect(clientIp({ ...peer("10.0.0.2"), "x-forwarded-for": "1.1.1.1, 203.0.113.4, 10.0.0.1" })).toBe("203.0.113.4");
    // Fewer entries than proxies: the request did not come through them; fall back to the socket.
    expect(clientIp({ ...peer("10.0.0.2"), "x-forwarded-for": "203.0.113.4" })).toBe("10.0.0.2");
  });

  it("uses X-Real-IP only behind a trusted proxy that sends no X-Forwarded-For", () => {
    process.env.XCLAW_TRUSTED_PROXIES = "1";
    resetEnvironment();
    expect(clientIp({ ...peer("10.0.0.1"), "x-real-ip": "203.0.113.5" })).toBe("203.0.113.5");
    delete process.env.XCLAW_TRUSTED_PROXIES;
    resetEnvironment();
    expect(clientIp({ ...peer("10.0.0.1"), "x-real-ip": "203.0.113.5" })).toBe("10.0.0.1");
  });

  it("reads an empty XCLAW_TRUSTED_PROXIES as zero, and refuses a nonsensical one at start, naming it", () => {
    process.env.XCLAW_TRUSTED_PROXIES = "";
    resetEnvironment();
    expect(clientIp({ ...peer("127.0.0.2"), "x-forwarded-for": "203.0.113.4" })).toBe("127.0.0.2");
    for (const value of ["-1", "abc", "1.5", "100"]) {
      expect(() => parseEnvironment({ XCLAW_TRUSTED_PROXIES: value }), value).toThrow(/XCLAW_TRUSTED_PROXIES: must be a whole number from 0 to 99/);
    }
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

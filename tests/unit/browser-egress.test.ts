import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowedOriginSet, originOf, siteName } from "@/lib/browser/egress";
import { ZBrowserActRequest } from "@/lib/browser/protocol";
import { ConfigError, parseBehaviourConfig } from "@/lib/config/behaviour";

describe("browser.egress", () => {
  it("is ask unless xclaw.yaml says otherwise, and the committed file keeps it so", () => {
    expect(parseBehaviourConfig("").browser.egress).toBe("ask");
    expect(parseBehaviourConfig(readFileSync("xclaw.yaml", "utf8")).browser.egress).toBe("ask");
    expect(parseBehaviourConfig("browser:\n  egress: allow\n").browser.egress).toBe("allow");
  });

  it("refuses anything else, naming the key", () => {
    expect(() => parseBehaviourConfig("browser:\n  egress: off\n")).toThrow(ConfigError);
    expect(() => parseBehaviourConfig("browser:\n  egress: off\n")).toThrow(/browser\.egress: must be "ask" or "allow"/);
  });
});

describe("origins", () => {
  it("are what the browser calls a site: scheme, host and port, nothing of the path", () => {
    expect(originOf("https://Example.COM:443/a?b=c#d")).toBe("https://example.com");
    expect(originOf("http://127.0.0.1:8080/collect?secret=1")).toBe("http://127.0.0.1:8080");
    expect(originOf("wss://chat.example.com/socket")).toBe("https://chat.example.com");
    for (const nothing of ["about:blank", "data:text/html,hi", "file:///etc/passwd", "javascript:alert(1)", "not a url"]) expect(originOf(nothing)).toBe("null");
    expect(siteName("https://example.com")).toBe("example.com");
    expect(siteName("http://127.0.0.1:8080")).toBe("127.0.0.1:8080");
  });

  it("on the allowed list are compared as URL writes them; junk allows nothing", () => {
    const allowed = allowedOriginSet(["https://EXAMPLE.com:443", "http://127.0.0.1:8080/", "about:blank", "*", "null"]);
    expect([...allowed]).toEqual(["https://example.com", "http://127.0.0.1:8080"]);
    expect(allowed.has("https://www.example.com")).toBe(false);
    expect(allowed.has("http://example.com")).toBe(false);
  });

  it("default to none when the app sends no policy", () => {
    const request = ZBrowserActRequest.parse({ userId: "u", sessionId: "s", action: { type: "navigate", url: "https://example.com" } });
    expect(request.egress).toEqual({ mode: "ask", allowedOrigins: [] });
  });
});

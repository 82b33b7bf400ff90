import { describe, expect, it } from "vitest";
import { blockedAddressKind, parseIpAddress } from "@/lib/net/ip-address";
import { checkUrlSyntax, parseAllowList, UrlGuard } from "@/lib/net/url-guard";

describe("addresses a server-side request must not reach", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.10.3", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.100.100.200", "carrier-grade NAT"],
    ["0.0.0.0", "this network"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["fd00:ec2::254", "unique local"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2002:7f00:1::", "6to4"],
    ["::7f00:1", "loopback"],
    ["3fff::1", "documentation"],
    ["100::1", "reserved"],
  ])("refuses %s (%s)", (address, kind) => {
    expect(blockedAddressKind(address)).toContain(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows the public address %s", (address) => {
    expect(blockedAddressKind(address)).toBeUndefined();
  });

  it("reads IPv6 in all its spellings", () => {
    const groups = (text: string) => (parseIpAddress(text) as { parts?: number[] } | undefined)?.parts;
    expect(groups("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(groups("[2001:db8::8:800:200c:417a]")).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(groups("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(groups("1:2:3:4:5:6:7.8.9.10")).toEqual([1, 2, 3, 4, 5, 6, 0x0708, 0x090a]);
    expect(groups("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpAddress("not-an-address")).toBeUndefined();
  });
});

describe("URLs", () => {
  const none = parseAllowList([]);

  it.each([
    ["file:///etc/passwd", "file:"],
    ["chrome://version", "chrome:"],
    ["about:blank", "about:"],
    ["data:text/html,<h1>hi</h1>", "data:"],
    ["javascript:alert(1)", "javascript:"],
    ["view-source:https://example.com", "view-source:"],
    ["ftp://example.com/file", "ftp:"],
  ])("refuses %s", (url, scheme) => {
    const verdict = checkUrlSyntax(url, none);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toContain(`${scheme} URLs cannot be opened`);
  });

  it.each([
    ["http://localhost:3000/", "loopback name"],
    ["http://LOCALHOST./", "loopback name"],
    ["http://api.localhost/", "loopback name"],
    ["http://127.0.0.1/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://[::1]:8080/", "loopback"],
    ["http://[::ffff:a9fe:a9fe]/", "link-local"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["https://10.0.0.5/", "private"],
  ])("refuses %s without asking DNS", (url, kind) => {
    const verdict = checkUrlSyntax(url, none);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toContain(kind);
  });

  it("lets the allow-list open exactly the listed host and port", () => {
    const allowList = parseAllowList(["127.0.0.1:4567", "intranet.local", "[::1]:9000"]);
    expect(checkUrlSyntax("http://127.0.0.1:4567/page", allowList).ok).toBe(true);
    expect(checkUrlSyntax("http://127.0.0.1:4568/page", allowList).ok).toBe(false);
    expect(checkUrlSyntax("http://127.0.0.2:4567/page", allowList).ok).toBe(false);
    expect(checkUrlSyntax("http://localhost:4567/page", allowList).ok).toBe(false);
    expect(checkUrlSyntax("https://intranet.local/any", allowList).ok).toBe(true);
    expect(checkUrlSyntax("http://[::1]:9000/", allowList).ok).toBe(true);
    expect(checkUrlSyntax("http://[::1]:9001/", allowList).ok).toBe(false);
  });

  it("rejects allow-list entries it cannot read", () => {
    expect(() => parseAllowList(["http://example.com"])).toThrow(/is not a host/);
    expect(() => parseAllowList(["10.0.0.0/40"])).toThrow(/not a valid address range/);
    expect(() => parseAllowList(["example.com:99999"])).toThrow(/invalid port/);
  });
});

describe("the guard with DNS", () => {
  const names: Record<string, string[]> = {
    "public.test": ["93.184.216.34"],
    "internal.test": ["127.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.7"],
    "v6-loopback.test": ["::1"],
    "intranet.test": ["10.20.30.40"],
  };
  let lookups = 0;
  const lookup = async (host: string) => {
    lookups++;
    const found = names[host];
    if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return found;
  };

  it("refuses a name that resolves to a private address, even one of several", async () => {
    const guard = new UrlGuard({ allowedPrivateHosts: [], lookup });
    expect(await guard.check("https://public.test/")).toMatchObject({ ok: true, host: "public.test" });
    expect(await guard.check("http://internal.test:8080/")).toEqual({ ok: false, reason: "internal.test resolves to 127.0.0.1, a loopback address" });
    expect(await guard.check("http://metadata.test/latest")).toMatchObject({ ok: false, reason: expect.stringContaining("169.254.169.254") });
    expect(await guard.check("http://mixed.test/")).toMatchObject({ ok: false, reason: expect.stringContaining("10.0.0.7") });
    expect(await guard.check("http://v6-loopback.test/")).toMatchObject({ ok: false, reason: expect.stringContaining("::1") });
    expect(await guard.check("http://nowhere.test/")).toMatchObject({ ok: false, unresolved: true });
  });

  it("resolves each name once within the cache time, so the proxy connects to what was checked", async () => {
    const guard = new UrlGuard({ allowedPrivateHosts: [], lookup, cacheMs: 60_000 });
    const before = lookups;
    const first = await guard.resolve("public.test", 443);
    const second = await guard.resolve("public.test", 443);
    expect(first).toEqual({ ok: true, addresses: ["93.184.216.34"] });
    expect(second).toEqual(first);
    expect(lookups - before).toBe(1);
  });

  it("allows a private name or address range when an admin listed it", async () => {
    const byName = new UrlGuard({ allowedPrivateHosts: ["internal.test:8080"], lookup });
    expect((await byName.check("http://internal.test:8080/")).ok).toBe(true);
    expect((await byName.check("http://internal.test:8081/")).ok).toBe(false);
    const byRange = new UrlGuard({ allowedPrivateHosts: ["10.20.0.0/16"], lookup });
    expect((await byRange.check("http://intranet.test/")).ok).toBe(true);
    expect((await byRange.check("http://10.20.1.1/")).ok).toBe(true);
    expect((await byRange.check("http://10.21.1.1/")).ok).toBe(false);
  });
});

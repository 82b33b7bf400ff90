import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { accessToken, forgetAccessToken, secondsOf } from "@/lib/channels/access-tokens";
import type { TOpenedAccount } from "@/lib/channels/channel-accounts";
import { decryptFeishu, feishuSignature } from "@/lib/channels/feishu/feishu-crypto";
import { readQqCallback } from "@/lib/channels/qq/qq-callback";
import { keyPairOf, signQq, verifyQq } from "@/lib/channels/qq/qq-signature";
import { splitText } from "@/lib/channels/split-text";
import { commandsFor, findCommand, helpText } from "@/lib/runs/slash-commands";
import { encryptFeishuEvent } from "../support/fake-feishu";
import { signQqCallback } from "../support/fake-qq";

describe("QQ signatures", () => {
  it("answers the published callback validation vector", () => {
    // bot-docs, event-emit.md: secret DG5g3B4j9X2KOErG, event_ts 1725442341, plain_token Arq0D5A61EgUu4OxUvOp.
    expect(signQq("DG5g3B4j9X2KOErG", "1725442341Arq0D5A61EgUu4OxUvOp")).toBe(
      "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
    );
  });

  it("derives the published public key from a secret shorter than the seed", () => {
    // bot-docs, sign.md: secret naOC0ocQE3shWLAfffVLB1rhYPG7, repeated and cut to 32 bytes.
    const raw = keyPairOf("naOC0ocQE3shWLAfffVLB1rhYPG7").publicKey.export({ format: "der", type: "spki" }).subarray(-32);
    expect([...raw]).toEqual([215, 195, 98, 254, 120, 174, 248, 31, 242, 50, 135, 180, 147, 98, 139, 93, 176, 42, 60, 79, 227, 11, 33, 94, 77, 25, 96, 155, 93, 118, 103, 58]);
  });

  it("verifies a signed dispatch on its raw bytes and refuses any change", () => {
    const secret = "naOC0ocQE3shWLAfffVLB1rhYPG7";
    const body = Buffer.from('{ "op": 0,"d": {}, "t": "GATEWAY_EVENT_NAME"}');
    const signature = signQqCallback(secret, "1725442341", body);
    expect(verifyQq(secret, "1725442341", body, signature)).toBe(true);
    expect(verifyQq(secret, "1725442342", body, signature)).toBe(false);
    expect(verifyQq(secret, "1725442341", Buffer.from('{"op": 0,"d": {}, "t": "GATEWAY_EVENT_NAME"}'), signature)).toBe(false);
    expect(verifyQq("another secret entirely", "1725442341", body, signature)).toBe(false);
    expect(verifyQq(secret, "1725442341", body, signature.slice(2))).toBe(false);
    expect(verifyQq(secret, "1725442341", body, "zz".repeat(64))).toBe(false);
    // A signature with the top bits of its last byte set is malformed (RFC 8032), whatever else it says.
    expect(verifyQq(secret, "1725442341", body, `${signature.slice(0, 126)}ff`)).toBe(false);
  });

  it("reads C2C and group messages, strips the mention, and answers op 13 only when signed", () => {
    const secret = "unit-test-secret-0123456789abcdef";
    const account = { secrets: { appSecret: secret } } as TOpenedAccount;
    const post = (payload: unknown, options: { sign?: boolean } = {}) => {
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = options.sign === false ? {} : { "x-signature-ed25519": signQqCallback(secret, timestamp, body), "x-signature-timestamp": timestamp };
      return readQqCallback(account, new Request("http://localhost/x", { method: "POST", headers, body }), Buffer.from(body));
    };
    const group = post({ op: 0, t: "GROUP_AT_MESSAGE_CREATE", d: { id: "m1", content: " <@!1234>  hello there ", timestamp: "2026-01-02T03:04:05+08:00", group_openid: "G", author: { member_openid: "M" } } });
    expect(group).toMatchObject({ kind: "message", eventId: "m1", ack: { op: 12, d: 0 }, message: { chat: "group", chatId: "G", senderId: "M", text: "hello there", sentAt: "2026-01-01T19:04:05.000Z" } });
    const direct = post({ op: 0, t: "C2C_MESSAGE_CREATE", d: { id: "m2", content: "hi", author: { user_openid: "U" } } });
    expect(direct).toMatchObject({ kind: "message", message: { chat: "direct", chatId: "U", senderId: "U", text: "hi" } });
    expect(post({ op: 0, t: "FRIEND_ADD", d: {} })).toEqual({ kind: "ignored", ack: { op: 12, d: 0 } });
    expect(() => post({ op: 13, d: { plain_token: "p", event_ts: "1" } }, { sign: false })).toThrow(/required/);
  });
});

describe("Feishu crypto", () => {
  it("decrypts the published vector: encrypt key “test key” → “hello world”", () => {
    expect(decryptFeishu("P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=", "test key")).toBe("hello world");
  });

  it("decrypts what Feishu encrypts (random IV first) and refuses another key", () => {
    const event = JSON.stringify({ challenge: "c", token: "t", type: "url_verification" });
    const encrypted = encryptFeishuEvent(event, "my key");
    expect(decryptFeishu(encrypted, "my key")).toBe(event);
    expect(() => decryptFeishu(encrypted, "not my key")).toThrow();
  });

  it("signs the raw bytes with the documented formula: sha256_hex(timestamp + nonce + encrypt key + body)", () => {
    const body = Buffer.from('{"encrypt":"ZXhhbXBsZQ=="}');
    const expected = createHash("sha256").update(`1700000000` + `nonce42` + `test key` + body.toString()).digest("hex");
    expect(feishuSignature("1700000000", "nonce42", "test key", body)).toBe(expected);
    expect(feishuSignature("1700000000", "nonce42", "test key", Buffer.from('{ "encrypt":"ZXhhbXBsZQ=="}'))).not.toBe(expected);
  });
});

describe("splitting long answers", () => {
  it("keeps parts within the limit, breaks at paragraphs, lines or spaces, and loses no word", () => {
    const text = Array.from({ length: 12 }, (_, index) => `Paragraph ${index}: ${"lorem ipsum ".repeat(index + 3).trim()}.`).join("\n\n");
    const parts = splitText(text, 120);
    expect(parts.every((part) => part.length <= 120)).toBe(true);
    expect(parts.join(" ").split(/\s+/)).toEqual(text.split(/\s+/));
    expect(parts[0]!.startsWith("Paragraph 0:")).toBe(true);
    expect(splitText("short", 120)).toEqual(["short"]);
    expect(splitText("   ", 120)).toEqual([]);
  });

  it("never cuts an emoji in half", () => {
    const parts = splitText("😀".repeat(30), 25);
    expect(parts.join("")).toBe("😀".repeat(30));
    for (const part of parts) expect(part).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/);
  });
});

describe("the command registry", () => {
  it("keeps the web chat's /help exactly as it was", () => {
    expect(helpText("web")).toBe(
      [
        "Commands:",
        "- `/steps [n]` — the last n steps of this session (default 20)",
        "- `/rollback <step>` — drop that step and everything after it (e.g. `/rollback s0003`)",
        "- `/fork <step> [title]` — a new session with the history up to and including that step",
        "- `/resume` — continue an interrupted run",
        "- `/skills` — the skills you can use (✅) and why others are unavailable (❌); `$name` in a message uses one",
        "- `!<command>` — run a shell command in your sandbox yourself, without the model (e.g. `!ls -la`)",
      ].join("\n"),
    );
  });

  it("lets each command declare the channels it serves", () => {
    expect(commandsFor("qq").map((command) => command.name)).toEqual(["/bind", "/new", "/steps", "/stop", "/skills", "/help"]);
    expect(commandsFor("feishu").map((command) => command.name)).toEqual(commandsFor("qq").map((command) => command.name));
    expect(findCommand("/ROLLBACK", "web")?.name).toBe("/rollback");
    expect(findCommand("/rollback", "qq")).toBeUndefined();
    expect(findCommand("/bind", "web")).toBeUndefined();
    expect(helpText("qq")).not.toContain("`");
  });
});

describe("access tokens", () => {
  it("fetches once for twenty callers at once, again after being forgotten, and per credentials", async () => {
    const account = { id: randomUUID(), name: "bot", appId: "1", secrets: { appSecret: "a" }, tokenUrl: "http://token" } as TOpenedAccount;
    let fetches = 0;
    const fetch = {
      refreshMarginSeconds: 50,
      fetchToken: async () => {
        fetches++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { token: `token-${fetches}`, expiresInSeconds: 7200 };
      },
    };
    const tokens = await Promise.all(Array.from({ length: 20 }, () => accessToken(account, fetch)));
    expect(new Set(tokens)).toEqual(new Set(["token-1"]));
    expect(fetches).toBe(1);
    forgetAccessToken(account);
    expect(await accessToken(account, fetch)).toBe("token-2");
    expect(await accessToken({ ...account, secrets: { appSecret: "b" } }, fetch)).toBe("token-3");
    expect(await accessToken(account, fetch)).toBe("token-2");
  });

  it("reads expires_in as a number or a string of digits", () => {
    expect([secondsOf(7200), secondsOf("7200"), secondsOf(" 60 "), secondsOf("7200s"), secondsOf(0), secondsOf(undefined)]).toEqual([7200, 7200, 60, undefined, undefined, undefined]);
  });
});

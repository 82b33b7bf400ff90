import { beforeEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { verifyCredentials } from "@/lib/auth/sign-in";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { createUser, STRONG_PASSWORD } from "../support/http";

async function attempt(email: string, password: string, ip = "198.51.100.1") {
  try {
    return await verifyCredentials({ email, password, ip });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe("sign-in with email and password", () => {
  beforeEach(async () => {
    await db().rateLimitBucket.deleteMany();
  });

  it("accepts the right password (email case and spaces do not matter) and records the sign-in", async () => {
    const { user } = await createUser({ email: "sign@example.com" });
    const result = await attempt("  SIGN@example.com ", STRONG_PASSWORD);
    expect(result).not.toBeInstanceOf(AppError);
    expect((result as { id: string }).id).toBe(user.id);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).lastSignInAt).not.toBeNull();
  });

  it("gives the same answer for a wrong password and an unknown email", async () => {
    await createUser({ email: "known@example.com" });
    const wrong = await attempt("known@example.com", "wrong-password-1");
    const unknown = await attempt("nobody@example.com", "wrong-password-1");
    expect(wrong).toMatchObject({ code: "unauthorized", message: "Email or password is incorrect." });
    expect(unknown).toMatchObject({ code: "unauthorized", message: "Email or password is incorrect." });
  });

  it("tells a disabled user so, but only after the right password", async () => {
    await createUser({ email: "off@example.com", status: "DISABLED" });
    expect(await attempt("off@example.com", "wrong-password-1")).toMatchObject({ code: "unauthorized" });
    expect(await attempt("off@example.com", STRONG_PASSWORD)).toMatchObject({
      code: "forbidden",
      message: "This account is disabled. Ask an administrator.",
    });
  });

  it("limits failed attempts per email with a clear 'try again in N s', even for the right password", async () => {
    await createUser({ email: "target@example.com" });
    const { maxFailures, windowSeconds } = getBehaviourConfig().auth.signInRateLimit.perEmail;
    for (let index = 0; index < maxFailures; index++) {
      expect(await attempt("target@example.com", `guess-${index}-x`, `203.0.113.${index}`)).toMatchObject({ code: "unauthorized" });
    }
    const blocked = await attempt("target@example.com", STRONG_PASSWORD, "203.0.113.200");
    expect(blocked).toBeInstanceOf(AppError);
    const error = blocked as AppError;
    expect(error.code).toBe("rate_limited");
    const seconds = Number(/Try again in (\d+) s\./.exec(error.message)?.[1]);
    expect(seconds).toBeGreaterThan(windowSeconds - 30);
    expect(seconds).toBeLessThanOrEqual(windowSeconds);
    expect(error.headers["retry-after"]).toBe(String(seconds));
    // Other accounts are not affected by this email's limit.
    await createUser({ email: "bystander@example.com" });
    expect(await attempt("bystander@example.com", STRONG_PASSWORD, "203.0.113.201")).not.toBeInstanceOf(AppError);
  });

  it("opens again when the window has passed", async () => {
    await createUser({ email: "later@example.com" });
    const { maxFailures, windowSeconds } = getBehaviourConfig().auth.signInRateLimit.perEmail;
    for (let index = 0; index < maxFailures; index++) await attempt("later@example.com", "nope-nope-1");
    expect(await attempt("later@example.com", STRONG_PASSWORD)).toMatchObject({ code: "rate_limited" });
    await db().rateLimitBucket.updateMany({ data: { windowStart: new Date(Date.now() - (windowSeconds + 1) * 1000) } });
    expect(await attempt("later@example.com", STRONG_PASSWORD)).not.toBeInstanceOf(AppError);
  });

  it("limits failed attempts per IP across many emails", async () => {
    const { maxFailures } = getBehaviourConfig().auth.signInRateLimit.perIp;
    await db().rateLimitBucket.create({ data: { key: "sign-in:ip:192.0.2.9", count: maxFailures, windowStart: new Date() } });
    expect(await attempt("anyone@example.com", "whatever-1", "192.0.2.9")).toMatchObject({ code: "rate_limited" });
    expect(await attempt("anyone@example.com", "whatever-1", "192.0.2.10")).toMatchObject({ code: "unauthorized" });
  });

  it("a successful sign-in clears the email's failure count", async () => {
    await createUser({ email: "reset@example.com" });
    await attempt("reset@example.com", "nope-nope-1");
    await attempt("reset@example.com", STRONG_PASSWORD);
    expect(await db().rateLimitBucket.findUnique({ where: { key: "sign-in:email:reset@example.com" } })).toBeNull();
  });
  it("counts an absurdly long email as an ordinary failed attempt, without a database error", async () => {
    // Random characters: PostgreSQL compresses repetitive index keys, random ones exceed the b-tree limit.
    const email = `${randomBytes(7_500).toString("base64url")}@example.com`;
    expect(email.length).toBeGreaterThan(10_000);
    expect(await attempt(email, "whatever-1", "198.51.100.77")).toMatchObject({ code: "unauthorized", message: "Email or password is incorrect." });
    expect(await attempt(email, "whatever-1", "198.51.100.77")).toMatchObject({ code: "unauthorized" });
    const ipBucket = await db().rateLimitBucket.findUnique({ where: { key: "sign-in:ip:198.51.100.77" } });
    expect(ipBucket?.count).toBe(2);
    const buckets = await db().rateLimitBucket.findMany();
    expect(buckets.every((bucket) => bucket.key.length <= 200)).toBe(true);
    const emailBucket = buckets.find((bucket) => bucket.key.startsWith("sign-in:email:"));
    expect(emailBucket?.count).toBe(2);
  });

  it("blocks an over-long email after the per-email limit like any other", async () => {
    const email = `${"x".repeat(300)}@example.com`;
    const { maxFailures } = getBehaviourConfig().auth.signInRateLimit.perEmail;
    for (let index = 0; index < maxFailures; index++) await attempt(email, "whatever-1", `203.0.113.${index}`);
    expect(await attempt(email, "whatever-1", "203.0.113.99")).toMatchObject({ code: "rate_limited" });
  });

  it("treats a password longer than any we accept as wrong, even for a real account", async () => {
    await createUser({ email: "long@example.com" });
    expect(await attempt("long@example.com", STRONG_PASSWORD + "x".repeat(1_000_000))).toMatchObject({ code: "unauthorized" });
    expect((await db().rateLimitBucket.findUnique({ where: { key: "sign-in:email:long@example.com" } }))?.count).toBe(1);
  });

  it("refuses NUL characters in the email or password with a message naming the field", async () => {
    await createUser({ email: "nul@example.com" });
    expect(await attempt("nul@example.com\u0000", STRONG_PASSWORD)).toMatchObject({
      code: "bad_request",
      message: "Email contains a character that is not allowed (U+0000 or an unpaired surrogate).",
    });
    expect(await attempt("nul@example.com", "pass\u0000word-1")).toMatchObject({
      code: "bad_request",
      message: "Password contains a character that is not allowed (U+0000 or an unpaired surrogate).",
    });
  });

  it("skips the per-IP limit when the client address is unknown instead of sharing one bucket", async () => {
    await createUser({ email: "noip@example.com" });
    await expect(verifyCredentials({ email: "noip@example.com", password: "wrong-password-1", ip: undefined })).rejects.toMatchObject({ code: "unauthorized" });
    const keys = (await db().rateLimitBucket.findMany()).map((bucket) => bucket.key);
    expect(keys).toEqual(["sign-in:email:noip@example.com"]);
  });
});

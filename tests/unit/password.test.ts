import { describe, expect, it } from "vitest";
import { hashPassword, passwordWeakness, verifyPassword } from "@/lib/auth/password";

describe("password hashing", () => {
  it("verifies the right password and rejects others", async () => {
    const hash = await hashPassword("correct-horse-42");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword("correct-horse-42", hash)).toBe(true);
    expect(await verifyPassword("correct-horse-43", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same-password-1")).not.toBe(await hashPassword("same-password-1"));
  });

  it("treats unicode forms of the same password alike (NFKC)", async () => {
    const hash = await hashPassword("caf\u00e9-latte-1");
    expect(await verifyPassword("cafe\u0301-latte-1", hash)).toBe(true);
  });

  it("rejects malformed stored hashes instead of throwing", async () => {
    expect(await verifyPassword("x", "bcrypt$whatever")).toBe(false);
    expect(await verifyPassword("x", "")).toBe(false);
  });
});

describe("password strength", () => {
  it.each([
    ["short1!", "Password must be at least 8 characters long."],
    ["abcdefghij", "Password must mix letters with at least one digit or symbol."],
    ["1234567890", "Password must mix letters with at least one digit or symbol."],
    ["aaaa1111", "Password is too repetitive."],
    ["alice-secret-1", "Password must not contain your email name."],
  ])("%s is refused: %s", (password, reason) => {
    expect(passwordWeakness(password, { minLength: 8, email: "alice@example.com" })).toBe(reason);
  });

  it("accepts a reasonable password", () => {
    expect(passwordWeakness("correct-horse-42", { minLength: 8, email: "alice@example.com" })).toBeUndefined();
    expect(passwordWeakness("密码是很长的句子1", { minLength: 8 })).toBeUndefined();
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { POST as register } from "@/app/api/register/route";
import { db } from "@/lib/db/client";
import { setRegistrationOpen } from "@/lib/settings/registration";
import { call, STRONG_PASSWORD } from "../support/http";

describe("POST /api/register", () => {
  beforeEach(async () => {
    await db().setting.deleteMany();
    await db().user.deleteMany();
  });

  it("creates the first account as admin and later ones as users", async () => {
    const first = await call(register, "/api/register", { body: { email: "Ada@Example.com ", password: STRONG_PASSWORD, name: "Ada" } });
    expect(first.status).toBe(201);
    expect(first.json.user).toMatchObject({ email: "ada@example.com", name: "Ada", role: "admin" });
    expect(first.json.user).not.toHaveProperty("passwordHash");

    const second = await call(register, "/api/register", { body: { email: "bob@example.com", password: STRONG_PASSWORD } });
    expect(second.status).toBe(201);
    expect(second.json.user).toMatchObject({ email: "bob@example.com", name: null, role: "user" });

    const stored = await db().user.findUniqueOrThrow({ where: { email: "bob@example.com" } });
    expect(stored.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored.passwordHash).not.toContain(STRONG_PASSWORD);
  });

  it("refuses a duplicate email, whatever its case, with 409", async () => {
    await call(register, "/api/register", { body: { email: "dup@example.com", password: STRONG_PASSWORD } });
    const again = await call(register, "/api/register", { body: { email: "DUP@example.com", password: STRONG_PASSWORD } });
    expect(again.status).toBe(409);
    expect(again.json.error).toEqual({ code: "conflict", message: "An account with this email already exists. Sign in instead." });
  });

  it.each([
    [{ email: "not-an-email", password: STRONG_PASSWORD }, "Enter a valid email address."],
    [{ password: STRONG_PASSWORD }, "Email is required."],
    [{ email: "a@example.com" }, "Password is required."],
    [{ email: "a@example.com", password: "short1" }, "Password must be at least 8 characters long."],
    [{ email: "a@example.com", password: "onlyletters" }, "Password must mix letters with at least one digit or symbol."],
    [{ email: "a@example.com", password: STRONG_PASSWORD, admin: true }, "Unknown field: admin."],
  ])("rejects %j with 400 and a clear message", async (body, message) => {
    const response = await call(register, "/api/register", { body });
    expect(response.status).toBe(400);
    expect(response.json.error).toEqual({ code: "bad_request", message });
    expect(await db().user.count()).toBe(0);
  });

  it("rejects a body that is not JSON", async () => {
    const response = await call(register, "/api/register", { rawBody: "{email:" });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toBe("The request body is not valid JSON.");
  });

  it("closes registration for everyone but the first account when an admin turns it off", async () => {
    await setRegistrationOpen(false);
    const first = await call(register, "/api/register", { body: { email: "first@example.com", password: STRONG_PASSWORD } });
    expect(first.status).toBe(201);
    const second = await call(register, "/api/register", { body: { email: "second@example.com", password: STRONG_PASSWORD } });
    expect(second.status).toBe(403);
    expect(second.json.error.message).toBe("Registration is closed. Ask an administrator for an account.");
    await setRegistrationOpen(true);
    const third = await call(register, "/api/register", { body: { email: "third@example.com", password: STRONG_PASSWORD } });
    expect(third.status).toBe(201);
  });

  it("makes exactly one admin when the first sign-ups race", async () => {
    const responses = await Promise.all(
      ["r1", "r2", "r3", "r4"].map((name) => call(register, "/api/register", { body: { email: `${name}@example.com`, password: STRONG_PASSWORD } })),
    );
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
    expect(await db().user.count({ where: { role: "ADMIN" } })).toBe(1);
  });
});

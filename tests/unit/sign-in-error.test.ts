import { describe, expect, it } from "vitest";
import { signInErrorMessage } from "@/components/auth/sign-in-error";
import { signInErrorCode } from "@/lib/auth/next-auth-options";
import { AppError } from "@/lib/errors";

describe("the sign-in page's error alert", () => {
  it("never shows the wording of an ?error= parameter, only its own sentences", () => {
    const phishing = [
      "Your account is locked. Call +1 555 0100 or visit evil.example to unlock it.",
      "Your%20session%20expired.%20Re-enter%20your%20card%20at%20evil.example",
      "Session+expired,+sign+in+at+evil.example",
      "rate_limited_5 visit evil.example",
      "rate_limited_-5",
      "__proto__",
      "toString",
    ];
    for (const text of phishing) {
      expect(signInErrorMessage(text), text).toBe("Sign-in failed. Try again.");
    }
  });

  it("maps our codes and next-auth's to our messages", () => {
    expect(signInErrorMessage("wrong_credentials")).toBe("Email or password is incorrect.");
    expect(signInErrorMessage("account_disabled")).toBe("This account is disabled. Ask an administrator.");
    expect(signInErrorMessage("rate_limited_42")).toBe("Too many failed sign-in attempts. Try again in 42 s.");
    expect(signInErrorMessage("CredentialsSignin")).toBe("Email or password is incorrect.");
    expect(signInErrorMessage("SessionRequired")).toBe("Sign in to continue.");
    expect(signInErrorMessage(undefined)).toBeUndefined();
    expect(signInErrorMessage("")).toBeUndefined();
  });

  it("is given a code by the credentials check, never the error's message", () => {
    expect(signInErrorCode(new AppError("unauthorized", "Email or password is incorrect."))).toBe("wrong_credentials");
    expect(signInErrorCode(new AppError("forbidden", "This account is disabled."))).toBe("account_disabled");
    expect(signInErrorCode(new AppError("bad_request", "email contains a character that is not allowed"))).toBe("invalid_characters");
    expect(signInErrorCode(new AppError("rate_limited", "Too many failed sign-in attempts. Try again in 30 s.", { headers: { "retry-after": "30" } }))).toBe("rate_limited_30");
    expect(signInErrorCode(new AppError("internal", "database is down"))).toBe("unavailable");
    for (const code of ["wrong_credentials", "account_disabled", "invalid_characters", "unavailable", "rate_limited_30"]) {
      expect(signInErrorMessage(code), code).not.toBe("Sign-in failed. Try again.");
    }
  });
});

import { describe, expect, it } from "vitest";
import { selectorLooksSensitive } from "@/lib/browser/sensitive-actions";

describe("sensitive selectors", () => {
  it.each(["#submit", "button[type=submit]", ".pay-button", "#btnDelete", "[data-action='place_order']", "text=Confirm", "button:has-text('购买')"])("treats %s as sensitive", (selector) => {
    expect(selectorLooksSensitive(selector)).toBe(true);
  });

  it.each(["#search", "a.nav-link", "text=Next", "#payments-history > a", "input[name=email]", "#submitted-list li"])("treats %s as ordinary", (selector) => {
    expect(selectorLooksSensitive(selector)).toBe(false);
  });
});

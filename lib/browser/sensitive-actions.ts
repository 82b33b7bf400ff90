/**
 * Which browser actions have effects beyond the page and therefore need the user's approval:
 * clicking something that submits, pays, deletes, confirms or purchases (by its words, in English
 * or Chinese), submitting a form that posts data, and anything at all on a page with a CAPTCHA.
 * The worker judges the real element right before acting (lib/browser never trusts the model's
 * description of it); this file holds the words both sides use.
 */
const ENGLISH = [
  "submit",
  "pay",
  "pay now",
  "payment",
  "checkout",
  "check out",
  "purchase",
  "buy",
  "buy now",
  "place order",
  "order now",
  "confirm",
  "delete",
  "remove",
  "destroy",
  "erase",
  "send",
  "transfer",
  "donate",
  "subscribe",
  "unsubscribe",
  "publish",
  "post",
  "book now",
];
const CHINESE = ["提交", "支付", "付款", "购买", "下单", "结算", "确认", "删除", "移除", "发送", "转账", "订阅", "发布"];

/** Source of the pattern; the in-page code builds its own RegExp from it (flags "i"). */
export const SENSITIVE_WORDS_PATTERN = `(?:^|[^a-z0-9])(?:${ENGLISH.map((word) => word.replace(/ /g, "\\s+")).join("|")})(?:$|[^a-z0-9])|${CHINESE.join("|")}`;

const SENSITIVE_WORDS = new RegExp(SENSITIVE_WORDS_PATTERN, "i");

/** Words in a selector (`#submit`, `button[type=submit]`, `.pay-button`) that mark the click as sensitive. */
export function selectorLooksSensitive(selector: string): boolean {
  // Split identifiers such as pay-button / btnDelete / place_order into words first.
  const words = selector.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[-_#.[\]="'():>+~*^$|,]/g, " ");
  return SENSITIVE_WORDS.test(words);
}

export function labelLooksSensitive(label: string): boolean {
  return SENSITIVE_WORDS.test(label);
}

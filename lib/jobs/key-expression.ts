/**
 * Concurrency and singleton keys are written as `event.data.<path>` — the subset of Inngest's CEL
 * key expressions that a property lookup evaluates exactly the same way. So the same string goes
 * to Inngest unchanged, and the embedded runner never evaluates code: no `eval`, no prototype
 * walk (only own properties are read).
 */
const KEY_EXPRESSION = /^event\.data(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export function compileKeyExpression(expression: string, where: string): (data: unknown) => string {
  if (!KEY_EXPRESSION.test(expression)) {
    throw new Error(`${where}: "${expression}" is not a key expression. Write event.data.<field>, e.g. "event.data.userId".`);
  }
  const path = expression.split(".").slice(2);
  return (data) => {
    let value: unknown = data;
    for (const name of path) {
      if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, name)) {
        value = undefined;
        break;
      }
      value = (value as Record<string, unknown>)[name];
    }
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  };
}

import { z } from "zod";
import { defineTool } from "./registry";

/**
 * Arithmetic without eval: a small recursive-descent parser over numbers, + - * / % ^, parentheses,
 * unary minus, a few functions and constants. Anything else is a parse error with its position.
 */
const FUNCTIONS: Record<string, (...values: number[]) => number> = {
  sqrt: Math.sqrt, abs: Math.abs, round: Math.round, floor: Math.floor, ceil: Math.ceil,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan,
  ln: Math.log, log: Math.log10, log2: Math.log2, exp: Math.exp, min: Math.min, max: Math.max, pow: Math.pow,
};
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: Math.PI * 2 };
const MAX_LENGTH = 500;

export class CalculatorError extends Error {}

export function evaluateExpression(source: string): number {
  if (source.length > MAX_LENGTH) throw new CalculatorError(`expression is longer than ${MAX_LENGTH} characters`);
  const text = source.replace(/×/g, "*").replace(/÷/g, "/").replace(/\*\*/g, "^");
  let position = 0;
  let depth = 0;

  const skipSpace = () => {
    while (position < text.length && /\s/.test(text[position]!)) position++;
  };
  const peek = () => {
    skipSpace();
    return text[position];
  };
  const fail = (message: string): never => {
    throw new CalculatorError(`${message} at position ${position + 1} of "${source}"`);
  };

  const parsePrimary = (): number => {
    const char = peek();
    if (char === undefined) return fail("unexpected end of expression");
    if (char === "(") {
      position++;
      if (++depth > 100) fail("too deeply nested");
      const value = parseSum();
      if (peek() !== ")") fail("expected )");
      position++;
      depth--;
      return value;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(position));
    if (number) {
      position += number[0].length;
      return Number(number[0]);
    }
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(position));
    if (name) {
      position += name[0].length;
      const key = name[0].toLowerCase();
      if (peek() === "(") {
        const fn = FUNCTIONS[key];
        if (!fn) fail(`unknown function ${name[0]}`);
        position++;
        const args: number[] = [];
        if (peek() !== ")") {
          args.push(parseSum());
          while (peek() === ",") {
            position++;
            args.push(parseSum());
          }
        }
        if (peek() !== ")") fail("expected )");
        position++;
        return fn!(...args);
      }
      if (key in CONSTANTS) return CONSTANTS[key]!;
      return fail(`unknown name ${name[0]}`);
    }
    return fail(`unexpected "${char}"`);
  };

  const parseUnary = (): number => {
    const char = peek();
    if (char === "-") {
      position++;
      return -parseUnary();
    }
    if (char === "+") {
      position++;
      return parseUnary();
    }
    return parsePower();
  };

  // Right-associative, and binds tighter than unary minus on its left: -2^2 = -4.
  const parsePower = (): number => {
    const base = parsePrimary();
    if (peek() === "^") {
      position++;
      return base ** parseUnary();
    }
    return base;
  };

  const parseProduct = (): number => {
    let value = parseUnary();
    for (let char = peek(); char === "*" || char === "/" || char === "%"; char = peek()) {
      position++;
      const right = parseUnary();
      if ((char === "/" || char === "%") && right === 0) fail("division by zero");
      value = char === "*" ? value * right : char === "/" ? value / right : value % right;
    }
    return value;
  };

  function parseSum(): number {
    let value = parseProduct();
    for (let char = peek(); char === "+" || char === "-"; char = peek()) {
      position++;
      const right = parseProduct();
      value = char === "+" ? value + right : value - right;
    }
    return value;
  }

  const result = parseSum();
  if (peek() !== undefined) fail(`unexpected "${peek()}"`);
  if (!Number.isFinite(result)) throw new CalculatorError(`the result of "${source}" is not a finite number`);
  return result;
}

export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
}

export const calculatorTool = defineTool({
  name: "calculator",
  description: "Evaluate an arithmetic expression exactly. Supports + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, sin, cos, tan, ln, log (base 10), log2, exp, min, max, pow, and the constants pi, e, tau.",
  input: z.object({ expression: z.string().min(1).describe("The expression, e.g. (3 + 4) * 2 ^ 3") }),
  risk: "read",
  async execute({ expression }) {
    try {
      return `${expression} = ${formatNumber(evaluateExpression(expression))}`;
    } catch (error) {
      if (error instanceof CalculatorError) return { content: [{ type: "text", text: error.message }], isError: true };
      throw error;
    }
  },
});

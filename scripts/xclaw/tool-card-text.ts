import { oneLine } from "./terminal-style";

/**
 * A tool card in one line each for its call and its result, the terminal's compact form of the
 * web's tool card: the tool's name, its arguments (as `key=value`, cut to fit), and the result's
 * first line with its step key and duration. The output is a TToolOutputView
 * (lib/channels/web/tool-output-view.ts), read field by field since tools fill it.
 */
const ARGUMENTS_WIDTH = 100;
const RESULT_WIDTH = 120;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function callText(input: unknown): string {
  if (!isRecord(input)) return input === undefined ? "" : oneLine(JSON.stringify(input) ?? "", ARGUMENTS_WIDTH);
  const pairs = Object.entries(input).map(([key, value]) => `${key}=${JSON.stringify(value) ?? "null"}`);
  return oneLine(pairs.join(" "), ARGUMENTS_WIDTH);
}

export type TToolResultText = { isError: boolean; summary: string; step?: string; durationMs?: number };

export function resultText(output: unknown): TToolResultText {
  if (typeof output === "string") return { isError: false, summary: oneLine(output, RESULT_WIDTH) };
  if (!isRecord(output)) return { isError: false, summary: "" };
  const text = typeof output.text === "string" ? output.text : "";
  const lines = text.trim().split("\n");
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
  const images = Array.isArray(output.images) && output.images.length ? ` [${output.images.length} image${output.images.length === 1 ? "" : "s"}]` : "";
  return {
    isError: output.isError === true,
    summary: `${oneLine(lines[0] ?? "", RESULT_WIDTH)}${more}${images}`,
    step: typeof output.step === "string" ? output.step : undefined,
    durationMs: typeof output.durationMs === "number" ? output.durationMs : undefined,
  };
}

export function durationText(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${(milliseconds / 1000).toFixed(1)} s`;
}

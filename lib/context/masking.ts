import type { TContextConfig } from "@/lib/config/context-config";
import type { TTokenCounter } from "@/lib/providers/token-count";
import { textOf, type TMessage, type TToolCall } from "@/lib/providers/types";
import { characterBoundary } from "./offload";

/**
 * Layer 3, observation masking: once the model's context passes `startRatio` of its window, older
 * tool results are replaced by one-line placeholders that keep the tool, its arguments and the
 * outcome, until the context is under `targetRatio`. Screenshots (results with images) go first,
 * then text, oldest first. Protected: the results of the newest `protectRounds` rounds of tool
 * calls, and any older result of a file those rounds touched (the model is working on it). Pure and
 * deterministic: the same history masks the same results, so the prefix stays stable between
 * calls; `recall_masked` brings a result back as a new observation (which is then protected).
 */
export type TMaskingSettings = TContextConfig["masking"];

export type TMaskingReport = { masked: number; screenshots: number; tokensBefore: number; tokensAfter: number; tokensSaved: number };

const ARGUMENT_PREVIEW_CHARACTERS = 160;
const OUTCOME_PREVIEW_CHARACTERS = 120;
const PATH_KEY = /path|file|dir|folder/i;

/** File paths a call's arguments name (top-level string values, or lists of them, under a path-like key). */
export function pathsOf(call: TToolCall | undefined): string[] {
  if (!call || !call.arguments || typeof call.arguments !== "object") return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(call.arguments as Record<string, unknown>)) {
    if (!PATH_KEY.test(key)) continue;
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === "string" && item.trim()) paths.push(item.trim().replace(/^\.\//, ""));
  }
  return paths;
}

function oneLine(text: string, limit: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, characterBoundary(line, limit))}…` : line;
}

/** The placeholder a masked result becomes: the tool, its arguments, the outcome, how to get it back. */
export function maskedPlaceholder(message: TMessage & { role: "tool" }, call: TToolCall | undefined, tokens: number, recallable = true): string {
  const argumentsText = oneLine(JSON.stringify(call?.arguments ?? {}), ARGUMENT_PREVIEW_CHARACTERS);
  const text = textOf(message.content);
  const images = message.content.filter((part) => part.type === "image").length;
  const firstLine = oneLine(text.split("\n").find((line) => line.trim()) ?? "", OUTCOME_PREVIEW_CHARACTERS);
  const size = `${text.length.toLocaleString("en-US")} characters${images ? `, ${images} image${images > 1 ? "s" : ""}` : ""}`;
  const outcome = message.isError ? `failed: ${firstLine}` : `ok (${size})${firstLine ? `: ${firstLine}` : ""}`;
  const recall = recallable ? `recall_masked {"id":"${message.toolCallId}"} brings it back` : "it cannot be recalled in this run";
  return `[masked observation: ${message.toolName} ${argumentsText} → ${outcome}. About ${tokens.toLocaleString("en-US")} tokens hidden to save context; ${recall}.]`;
}

export function maskObservations(
  messages: readonly TMessage[],
  counter: TTokenCounter,
  options: {
    settings: TMaskingSettings;
    windowTokens: number;
    fixedTokens: number;
    /** The messages before earlier layers changed them (same order): placeholders describe the real result. */
    originals?: readonly TMessage[];
    /** Whether this run offers recall_masked (a narrowed tool list may not); placeholders say so. */
    recallable?: boolean;
  },
): { messages: TMessage[]; report: TMaskingReport } {
  const { settings } = options;
  const report: TMaskingReport = { masked: 0, screenshots: 0, tokensBefore: 0, tokensAfter: 0, tokensSaved: 0 };
  let total = options.fixedTokens + counter.messages(messages);
  if (total <= options.windowTokens * settings.startRatio) return { messages: [...messages], report };
  const target = options.windowTokens * settings.targetRatio;

  // Rounds: each assistant message with tool calls, and the results that answer it.
  const calls = new Map<string, { call: TToolCall; round: number }>();
  let rounds = 0;
  for (const message of messages) {
    if (message.role === "assistant" && message.toolCalls.length) {
      for (const call of message.toolCalls) calls.set(call.id, { call, round: rounds });
      rounds += 1;
    }
  }
  const firstProtectedRound = rounds - settings.protectRounds;
  const protectedPaths = new Set([...calls.values()].filter((entry) => entry.round >= firstProtectedRound).flatMap((entry) => pathsOf(entry.call)));

  const candidates: { index: number; images: boolean }[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const entry = calls.get(message.toolCallId);
    if (!entry || entry.round >= firstProtectedRound) return;
    if (pathsOf(entry.call).some((path) => protectedPaths.has(path))) return;
    if (counter.message(message) < settings.minTokens) return;
    candidates.push({ index, images: message.content.some((part) => part.type === "image") });
  });
  // Screenshots first (they cost the most and age the fastest), then the oldest text.
  candidates.sort((a, b) => Number(b.images) - Number(a.images) || a.index - b.index);

  const result = [...messages];
  const describe = (index: number) => {
    const original = options.originals?.[index];
    return (original?.role === "tool" ? original : result[index]) as TMessage & { role: "tool" };
  };
  for (const candidate of candidates) {
    if (total <= target) break;
    const message = result[candidate.index] as TMessage & { role: "tool" };
    const before = counter.message(message);
    const placeholder: TMessage = {
      role: "tool",
      toolCallId: message.toolCallId,
      toolName: message.toolName,
      isError: message.isError,
      content: [{ type: "text", text: maskedPlaceholder(describe(candidate.index), calls.get(message.toolCallId)?.call, before, options.recallable ?? true) }],
    };
    const after = counter.message(placeholder);
    if (after >= before) continue;
    result[candidate.index] = placeholder;
    total -= before - after;
    report.masked += 1;
    if (candidate.images) report.screenshots += 1;
    report.tokensBefore += before;
    report.tokensAfter += after;
  }
  report.tokensSaved = report.tokensBefore - report.tokensAfter;
  return { messages: result, report };
}

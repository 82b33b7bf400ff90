import { z } from "zod";
import type { Prisma, Step } from "@/lib/db/generated/client";

/**
 * What each kind of step stores in its `input` and `output` columns. Writers build these shapes
 * (the types keep them honest); readers decode them with these schemas instead of casting, so a
 * row written by an older version, or edited by hand, becomes a clear "unreadable step" instead of
 * a crash deep inside history building.
 */
const ZContentPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image"), mediaType: z.string(), data: z.string() }),
]);
const ZToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.unknown() });
const ZTone = z.enum(["info", "warning", "error"]);

const ZAttachment = z.object({
  name: z.string(),
  path: z.string(),
  mediaType: z.string(),
  bytes: z.number(),
  image: z.object({ mediaType: z.string(), data: z.string() }).optional(),
});
/** `attachments`: files the person attached (lib/sessions/attachments.ts), images with their bytes. */
export const ZUserInput = z.object({ text: z.string(), attachments: z.array(ZAttachment).optional() });
export const ZModelInput = z.object({ iteration: z.number() });
/** `context`: what the context layers did before the call (lib/context; tokens counted and saved per layer). */
export const ZModelOutput = z.object({
  text: z.string(),
  toolCalls: z.array(ZToolCall),
  partial: z.boolean().optional(),
  context: z.record(z.string(), z.record(z.string(), z.union([z.number(), z.string(), z.boolean()]))).optional(),
});
export const ZToolInput = z.object({ toolCallId: z.string(), name: z.string(), arguments: z.unknown(), bang: z.boolean().optional() });
export const ZToolOutput = z.object({ content: z.array(ZContentPart), isError: z.boolean(), durationMs: z.number().optional() });
/** `forModel`: the note is an instruction for the model (the resume notice), not for people. */
export const ZNoteInput = z.object({ text: z.string(), tone: ZTone.optional(), forModel: z.boolean().optional() });
export const ZCommandInput = z.object({ text: z.string() });
export const ZCommandOutput = z.object({
  reply: z.string(),
  action: z.object({ action: z.enum(["reload", "open"]), sessionId: z.string() }).optional(),
});

export type TUserInput = z.infer<typeof ZUserInput>;
export type TModelOutput = z.infer<typeof ZModelOutput>;
export type TToolInput = z.infer<typeof ZToolInput>;
export type TToolOutput = z.infer<typeof ZToolOutput>;
export type TNoteInput = z.infer<typeof ZNoteInput>;
export type TCommandInput = z.infer<typeof ZCommandInput>;
export type TCommandOutput = z.infer<typeof ZCommandOutput>;

/** A step with its columns decoded by type. `output` is undefined while running or when absent. */
export type TDecodedStep =
  | { kind: "user"; step: Step; input: TUserInput }
  | { kind: "model"; step: Step; output: TModelOutput | undefined }
  | { kind: "tool"; step: Step; input: TToolInput; output: TToolOutput | undefined }
  | { kind: "note"; step: Step; input: TNoteInput }
  | { kind: "command"; step: Step; input: TCommandInput; output: TCommandOutput | undefined }
  | { kind: "unreadable"; step: Step; problem: string };

function optional<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T | undefined } | { ok: false; problem: string } {
  if (value === null || value === undefined) return { ok: true, value: undefined };
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
}

function required<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; problem: string } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
}

export function decodeStep(step: Step): TDecodedStep {
  const unreadable = (problem: string): TDecodedStep => ({ kind: "unreadable", step, problem });
  switch (step.type) {
    case "USER_INPUT": {
      const input = required(ZUserInput, step.input);
      return input.ok ? { kind: "user", step, input: input.value } : unreadable(input.problem);
    }
    case "MODEL_CALL": {
      const output = optional(ZModelOutput, step.output);
      return output.ok ? { kind: "model", step, output: output.value } : unreadable(output.problem);
    }
    case "TOOL_CALL": {
      const input = required(ZToolInput, step.input);
      const output = optional(ZToolOutput, step.output);
      if (!input.ok) return unreadable(input.problem);
      return output.ok ? { kind: "tool", step, input: input.value, output: output.value } : unreadable(output.problem);
    }
    case "SYSTEM_NOTE": {
      const input = required(ZNoteInput, step.input);
      return input.ok ? { kind: "note", step, input: input.value } : unreadable(input.problem);
    }
    case "COMMAND": {
      const input = required(ZCommandInput, step.input);
      const output = optional(ZCommandOutput, step.output);
      if (!input.ok) return unreadable(input.problem);
      return output.ok ? { kind: "command", step, input: input.value, output: output.value } : unreadable(output.problem);
    }
  }
}

/** Typed values for Prisma's Json columns (the types above are plain JSON). */
export function asJson(value: TUserInput | TModelOutput | TToolInput | TToolOutput | TNoteInput | TCommandInput | TCommandOutput | { iteration: number }): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

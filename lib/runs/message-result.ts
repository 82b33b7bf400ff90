import type { TContentPart } from "@/lib/providers/types";
import type { TSessionAction } from "@/lib/wire/chat";
import type { TStartedRun } from "./start-run";

/**
 * What handling a message produced, in no channel's format: a run to follow, or a reply (a slash
 * command's answer, a command the person ran themselves). The web channel turns it into the AI SDK
 * UI message stream; a QQ or Feishu adapter turns the same result into text replies.
 */
export type TReplyToolCall = {
  callId: string;
  name: string;
  input: unknown;
  content: TContentPart[];
  isError: boolean;
  durationMs: number;
  stepKey: string;
};

export type TMessageResult =
  | { kind: "run"; run: TStartedRun }
  | { kind: "reply"; text: string; action?: TSessionAction; toolCall?: TReplyToolCall };

import { textOf, type TContentPart } from "@/lib/providers/types";
import type { TToolOutputView } from "@/lib/wire/chat";

/**
 * The one place that turns a tool result into what its card shows, for the live stream and for a
 * reloaded page alike: the text, screenshots as data URLs, the error flag, duration and step key.
 */
export function toolOutputView(result: { content: TContentPart[]; isError: boolean; durationMs: number | null; stepKey: string }): TToolOutputView {
  const images = result.content.flatMap((part) => (part.type === "image" ? [`data:${part.mediaType};base64,${part.data}`] : []));
  return { text: textOf(result.content), isError: result.isError, durationMs: result.durationMs, step: result.stepKey, ...(images.length ? { images } : {}) };
}

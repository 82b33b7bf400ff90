"use client";

import { memo, useContext } from "react";
import { RefreshIcon } from "@/components/ui/icons";
import { ActionButton, CopyButton, MessageActions } from "./message-actions";
import { hasVisibleContent, hiddenParts, replyText } from "./message-model";
import { MessagePart, PartContext } from "./message-parts";
import type { TChatMessage } from "./types";

/**
 * One reply of the assistant: usually one message; while a run that continued after an approval
 * is followed live, the paused message and its continuation, drawn as one. Copy copies the reply's
 * text; Regenerate (the last reply only) sends the question again in its place.
 */
export const AssistantReply = memo(function AssistantReply({
  messages,
  active,
  canRegenerate,
  onRegenerate,
}: {
  messages: TChatMessage[];
  /** The reply being written now. */
  active: boolean;
  canRegenerate: boolean;
  onRegenerate: () => void;
}) {
  const context = useContext(PartContext)!;
  const lastMessage = messages.at(-1)!;
  const visible = messages.map((message) => ({ message, hidden: hiddenParts(message, context.tools, active && message === lastMessage) }));
  const anything = visible.some(({ message, hidden }) => hasVisibleContent(message, hidden));
  const text = replyText(messages, context.tools);

  return (
    <article data-testid="assistant-message" className="group min-w-0 text-neutral-900 dark:text-neutral-100" aria-busy={active || undefined}>
      <h3 className="sr-only">xclaw replied</h3>
      {visible.map(({ message, hidden }) => {
        let lastShown = -1;
        message.parts.forEach((part, index) => {
          if (!hidden.has(index) && part.type !== "step-start" && part.type !== "data-step") lastShown = index;
        });
        return message.parts.map((part, index) =>
          hidden.has(index) ? null : (
            <MessagePart key={`${message.id}-${index}`} part={part} activeMessage={active} lastVisible={message === lastMessage && index === lastShown} />
          ),
        );
      })}
      {active && !anything ? <Thinking /> : null}
      {!active && (text || canRegenerate) ? (
        <div className="mt-1 flex flex-wrap items-center gap-2">
          <MessageActions>
            {text ? <CopyButton text={text} label="Copy reply" /> : null}
            {canRegenerate ? (
              <ActionButton label="Regenerate reply" onClick={onRegenerate}>
                <RefreshIcon />
              </ActionButton>
            ) : null}
          </MessageActions>
        </div>
      ) : null}
    </article>
  );
});

export function Thinking() {
  return (
    <div className="flex items-center gap-1 py-2" aria-label="xclaw is thinking" role="img" data-testid="thinking">
      {[0, 150, 300].map((delay) => (
        <span key={delay} className="size-1.5 animate-bounce rounded-full bg-neutral-400 dark:bg-neutral-500" style={{ animationDelay: `${delay}ms` }} />
      ))}
    </div>
  );
}

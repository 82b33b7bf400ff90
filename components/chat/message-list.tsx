"use client";

import { useMemo } from "react";
import { AssistantReply, Thinking } from "./assistant-reply";
import { buildToolIndex, groupReplies } from "./message-model";
import { PartContext, type TPartContext } from "./message-parts";
import type { TAttachmentView, TChatMessage } from "./types";
import { UserMessage } from "./user-message";

/**
 * The conversation: the person's messages and the assistant's replies, in order. Tool calls are
 * indexed across messages first, so a call repeated by a followed continuation is one card.
 */
export function MessageList({
  messages,
  busy,
  context,
  stepKeyOf,
  onEdit,
  onRegenerate,
}: {
  messages: TChatMessage[];
  busy: boolean;
  context: Omit<TPartContext, "tools">;
  stepKeyOf: (message: TChatMessage) => string | undefined;
  onEdit: (message: TChatMessage, text: string, attachments: TAttachmentView[]) => Promise<void>;
  onRegenerate: () => void;
}) {
  const tools = useMemo(() => buildToolIndex(messages), [messages]);
  const items = useMemo(() => groupReplies(messages), [messages]);
  const partContext = useMemo(() => ({ ...context, tools }), [context, tools]);
  const lastItem = items.at(-1);
  const waitingForReply = busy && lastItem?.kind !== "reply";

  return (
    <PartContext.Provider value={partContext}>
      {items.map((item, index) => {
        const last = index === items.length - 1;
        if (item.kind === "user") {
          const stepKey = stepKeyOf(item.message);
          // Commands ("/steps") are answered without the model: nothing to edit there.
          const editable = !busy && Boolean(stepKey) && !item.message.parts.some((part) => part.type === "text" && part.text.startsWith("/"));
          return <UserMessage key={item.message.id} message={item.message} stepKey={stepKey} showStepIds={context.showStepIds} canEdit={editable} onEdit={onEdit} />;
        }
        const previous = items[index - 1];
        const question = previous?.kind === "user" ? previous.message : undefined;
        return (
          <AssistantReply
            key={item.messages[0]!.id}
            messages={item.messages}
            active={busy && last}
            canRegenerate={last && !busy && question !== undefined && Boolean(stepKeyOf(question))}
            onRegenerate={onRegenerate}
          />
        );
      })}
      {waitingForReply ? <Thinking /> : null}
    </PartContext.Provider>
  );
}

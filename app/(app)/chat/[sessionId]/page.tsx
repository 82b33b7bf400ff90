import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ChatView } from "@/components/chat/chat-view";
import type { TChatSession } from "@/components/chat/types";
import type { TChatMessage } from "@/lib/wire/chat";
import { requirePageUser } from "@/lib/auth/page-session";
import { isAppError } from "@/lib/errors";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { modelChoices, providerStatus } from "@/lib/providers/registry";
import { getSessionView } from "@/lib/channels/web/session-view";

type TParams = { params: Promise<{ sessionId: string }> };

/** The session and its messages exactly as GET /api/sessions/:id returns them; a foreign or malformed id is a 404. */
const loadChat = cache(async (userId: string, sessionId: string): Promise<{ session: TChatSession; messages: TChatMessage[] }> => {
  let view;
  try {
    view = await getSessionView({ userId, sessionId });
  } catch (error) {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  }
  return { session: view.session, messages: view.messages };
});

export async function generateMetadata({ params }: TParams): Promise<Metadata> {
  const user = await requirePageUser();
  const { sessionId } = await params;
  const { session } = await loadChat(user.id, sessionId);
  return { title: session.title };
}

export default async function ChatPage({ params }: TParams) {
  const user = await requirePageUser();
  const { sessionId } = await params;
  const { session, messages } = await loadChat(user.id, sessionId);
  const { maxFileBytes, maxFiles } = getBehaviourConfig().chat.attachments;
  return (
    <ChatView
      key={session.id}
      session={session}
      initialMessages={messages}
      providers={providerStatus()}
      models={modelChoices()}
      attachmentLimits={{ maxFileBytes, maxFiles }}
      isAdmin={user.role === "ADMIN"}
    />
  );
}

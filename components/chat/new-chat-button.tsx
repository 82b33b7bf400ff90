"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useSessionList, type TSessionListItem } from "@/components/app-shell/session-list-context";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type TCreatedSession = { session: { id: string; title: string; status: TSessionListItem["status"]; updatedAt: string } };

/** Creates an empty session and opens it. */
export function NewChatButton({
  className,
  variant = "primary",
  size = "md",
  onCreated,
}: {
  className?: string;
  variant?: "primary" | "secondary";
  size?: "md" | "sm";
  onCreated?: () => void;
}) {
  const router = useRouter();
  const { update } = useSessionList();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();

  async function create() {
    setPending(true);
    setError(undefined);
    try {
      const { session } = await apiRequest<TCreatedSession>("/api/sessions", { method: "POST", body: {} });
      update((sessions) => [
        { id: session.id, title: session.title, status: session.status, updatedAt: session.updatedAt },
        ...sessions.filter((item) => item.id !== session.id),
      ]);
      onCreated?.();
      router.push(`/chat/${session.id}`);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className={className}>
      <Button variant={variant} size={size} pending={pending} onClick={create} className="w-full">
        {pending ? null : <PlusIcon />}
        New chat
      </Button>
      {error ? (
        <Alert tone="error" className="mt-2">
          {error}
        </Alert>
      ) : null}
    </div>
  );
}

function PlusIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
      <path d="M12 5v14M5 12h14" />
    </svg>
  );
}

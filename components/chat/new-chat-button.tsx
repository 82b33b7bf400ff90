"use client";

import { useRouter } from "next/navigation";
import { useState, type Ref } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useSessionList } from "@/components/app-shell/session-list-context";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { TSessionSummary } from "@/lib/wire/chat";

type TOpenedSession = { session: TSessionSummary; reused?: boolean };

/** Opens a new chat: the newest still-empty one if there is one (POST /api/sessions reuseEmpty). */
export function NewChatButton({
  className,
  variant = "primary",
  size = "md",
  onCreated,
  ref,
}: {
  className?: string;
  variant?: "primary" | "secondary";
  size?: "md" | "sm";
  onCreated?: () => void;
  ref?: Ref<HTMLButtonElement>;
}) {
  const router = useRouter();
  const { update } = useSessionList();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();

  async function create() {
    setPending(true);
    setError(undefined);
    try {
      const { session } = await apiRequest<TOpenedSession>("/api/sessions", { method: "POST", body: { reuseEmpty: true } });
      update((sessions) => [
        { id: session.id, title: session.title, status: session.status, updatedAt: session.updatedAt, trigger: session.trigger, parentSessionId: session.parentSessionId, forkedFromStep: session.forkedFromStep },
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
      <Button ref={ref} variant={variant} size={size} pending={pending} onClick={create} className="w-full" aria-keyshortcuts="Control+Shift+O">
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

"use client";

import { useRouter } from "next/navigation";
import type { Ref } from "react";
import { apiRequest } from "@/components/api-request";
import { useSessionList } from "@/components/app-shell/session-list-context";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { AddIcon } from "@/components/ui/icons";
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
  const { busy, feedback, run } = useAction();

  const create = () =>
    run("create", async () => {
      const { session } = await apiRequest<TOpenedSession>("/api/sessions", { method: "POST", body: { reuseEmpty: true } });
      update((sessions) => [
        { id: session.id, title: session.title, status: session.status, updatedAt: session.updatedAt, trigger: session.trigger, parentSessionId: session.parentSessionId, forkedFromStep: session.forkedFromStep },
        ...sessions.filter((item) => item.id !== session.id),
      ]);
      onCreated?.();
      router.push(`/chat/${session.id}`);
    });

  return (
    <div className={className}>
      <Button ref={ref} variant={variant} size={size} pending={busy} onClick={create} className="w-full" aria-keyshortcuts="Control+Shift+O">
        {busy ? null : <AddIcon />}
        New chat
      </Button>
      <FeedbackAlert feedback={feedback} className="mt-2" />
    </div>
  );
}

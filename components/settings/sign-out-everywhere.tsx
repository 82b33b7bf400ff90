"use client";

import { signOut } from "next-auth/react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { hardNavigate } from "@/components/hard-navigate";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

export function SignOutEverywhere() {
  const { busy, feedback, run } = useAction();

  const onClick = () =>
    run(
      "sign-out",
      async () => {
        await apiRequest("/api/me/sign-out-everywhere", { method: "POST" });
        await signOut({ callbackUrl: "/sign-in" }).catch(() => hardNavigate("/sign-in"));
      },
      { leaving: true },
    );

  return (
    <div className="space-y-4">
      <FeedbackAlert feedback={feedback} />
      <Button variant="danger" pending={busy} onClick={onClick}>
        Sign out everywhere
      </Button>
    </div>
  );
}

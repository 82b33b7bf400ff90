"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button } from "@/components/ui/button";

export function SignOutButton({ className }: { className?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="secondary"
      size="sm"
      className={className}
      pending={pending}
      onClick={async () => {
        setPending(true);
        try {
          await signOut({ callbackUrl: "/sign-in" });
        } catch {
          setPending(false);
        }
      }}
    >
      Sign out
    </Button>
  );
}

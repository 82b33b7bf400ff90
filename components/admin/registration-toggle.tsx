"use client";

import { useId, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";

export function RegistrationToggle({ initialOpen }: { initialOpen: boolean }) {
  const [open, setOpen] = useState(initialOpen);
  const { busy, feedback, run } = useAction();
  const id = useId();

  async function onChange(next: boolean) {
    // Shown at once; put back if the server refuses.
    setOpen(next);
    const saved = await run("save", async () => {
      const result = await apiRequest<{ registrationOpen: boolean }>("/api/admin/settings", { method: "PATCH", body: { registrationOpen: next } });
      setOpen(result.registrationOpen);
      return result.registrationOpen ? "Anyone can now create an account." : "Sign-up is closed. Only admins can let people in.";
    });
    if (!saved) setOpen(!next);
  }

  return (
    <div className="space-y-3">
      <div className="flex items-start gap-3">
        {/* A native checkbox styled as a switch: Space toggles it, screen readers say "switch". */}
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-describedby={`${id}-hint`}
          checked={open}
          disabled={busy}
          onChange={(event) => onChange(event.target.checked)}
          className={[
            "relative mt-0.5 h-6 w-11 shrink-0 cursor-pointer appearance-none rounded-full transition-colors",
            "bg-neutral-300 checked:bg-green-600 dark:bg-neutral-700 dark:checked:bg-green-500",
            "before:absolute before:top-0.5 before:left-0.5 before:size-5 before:rounded-full before:bg-white before:shadow before:transition-transform",
            "checked:before:translate-x-5",
            "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:focus-visible:outline-blue-400",
            "disabled:cursor-wait disabled:opacity-60",
          ].join(" ")}
        />
        <div>
          <label htmlFor={id} className="cursor-pointer text-sm font-medium text-neutral-900 dark:text-neutral-100">
            Allow new people to sign up
          </label>
          <p id={`${id}-hint`} className="text-sm text-neutral-600 dark:text-neutral-400">
            When off, the sign-up page says registration is closed.
          </p>
        </div>
      </div>
      <FeedbackAlert feedback={feedback} />
    </div>
  );
}

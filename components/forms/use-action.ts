"use client";

import { useCallback, useState, type FormEvent } from "react";
import { errorMessage } from "@/components/api-request";

/** What the last action said: its confirmation, or why it failed (the server's own message). */
export type TFeedback = { tone: "success" | "error"; message: string };

/** An error whose message is written for people (a sign-in refusal, a form's own check): shown as it is. */
export class ShownError extends Error {}

/**
 * The state behind the buttons and forms of a page that call the API: which action is in flight
 * (a key — a row's id, "create", … — one at a time) and what the last one said. `run` clears the
 * last message, runs the action and shows the text it returns as a confirmation, or its error.
 * With `leaving`, a success keeps the action pending: the page is about to go elsewhere, and the
 * button must not come back for a second click in the meantime.
 */
export function useAction() {
  const [pending, setPending] = useState<string>();
  const [feedback, setFeedback] = useState<TFeedback>();

  /** Shows why something failed that did not go through `run` (a reload in the background). */
  const fail = useCallback((caught: unknown) => setFeedback({ tone: "error", message: caught instanceof ShownError ? caught.message : errorMessage(caught) }), []);

  const run = useCallback(
    async (key: string, action: () => Promise<string | void>, options: { leaving?: boolean } = {}): Promise<boolean> => {
      setPending(key);
      setFeedback(undefined);
      try {
        const confirmation = await action();
        if (confirmation) setFeedback({ tone: "success", message: confirmation });
        if (!options.leaving) setPending(undefined);
        return true;
      } catch (caught) {
        fail(caught);
        setPending(undefined);
        return false;
      }
    },
    [fail],
  );

  /** The same for a form: its submit event (the browser's own submit is prevented). */
  const submit = useCallback(
    (key: string, action: () => Promise<string | void>, options?: { leaving?: boolean }) => (event: FormEvent) => {
      event.preventDefault();
      void run(key, action, options);
    },
    [run],
  );

  /** Shows a confirmation of something done outside `run` (a deletion confirmed in a dialog). */
  const announce = useCallback((message: string) => setFeedback({ tone: "success", message }), []);

  const clear = useCallback(() => setFeedback(undefined), []);

  return { pending, busy: pending !== undefined, feedback, error: feedback?.tone === "error" ? feedback.message : undefined, run, submit, fail, announce, clear };
}

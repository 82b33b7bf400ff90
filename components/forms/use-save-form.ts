"use client";

import { useState, type FormEvent } from "react";
import { errorMessage } from "@/components/api-request";

export type TSaveResult = { tone: "success" | "error"; message: string };

/**
 * The submit cycle of a settings form: while `save` runs the button is pending, then its
 * confirmation (what `save` returns) or the server's error message shows under the form.
 * `clearResult` hides the message again once the person edits.
 */
export function useSaveForm(save: () => Promise<string>) {
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<TSaveResult>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setResult(undefined);
    try {
      setResult({ tone: "success", message: await save() });
    } catch (caught) {
      setResult({ tone: "error", message: errorMessage(caught) });
    } finally {
      setPending(false);
    }
  }

  return { pending, result, onSubmit, clearResult: () => setResult(undefined) };
}

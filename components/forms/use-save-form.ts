"use client";

import { useAction, type TFeedback } from "./use-action";

export type TSaveResult = TFeedback;

/**
 * The submit cycle of a settings form: while `save` runs the button is pending, then its
 * confirmation (what `save` returns) or the server's error message shows under the form.
 * `clearResult` hides the message again once the person edits.
 */
export function useSaveForm(save: () => Promise<string>) {
  const { busy, feedback, submit, clear } = useAction();
  return { pending: busy, result: feedback, onSubmit: submit("save", save), clearResult: clear };
}

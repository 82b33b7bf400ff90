"use client";

import { useState } from "react";
import { useAction } from "./use-action";

/**
 * A question asked before a destructive action (ConfirmDialog): what it is about, the request
 * while it runs, and its error, shown inside the dialog. A success closes the dialog; Cancel does
 * nothing while the request runs. Spread `dialog` into the ConfirmDialog.
 */
export function useConfirmation<TSubject>() {
  const [subject, setSubject] = useState<TSubject>();
  const { busy, error, run, clear } = useAction();

  const ask = (next: TSubject) => {
    clear();
    setSubject(next);
  };

  const cancel = () => {
    if (busy) return;
    setSubject(undefined);
    clear();
  };

  const confirm = (action: (subject: TSubject) => Promise<void>) => () => {
    if (subject === undefined) return;
    void run("confirm", async () => {
      await action(subject);
      setSubject(undefined);
    });
  };

  return { subject, ask, confirm, dialog: { open: subject !== undefined, pending: busy, error, onCancel: cancel } };
}

"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";

/**
 * The state behind an admin list of uploaded extensions (plugins, skills): the rows, reloading
 * after an upload, replacing a row a details panel changed, and Enable / Disable with one request
 * in flight at a time. `key` names a row in its URL (`${endpoint}/${key}`).
 */
export function useExtensionList<TRow extends { enabled: boolean }>(options: {
  initial: TRow[];
  endpoint: string;
  /** The response's field holding the list ("plugins") and the one holding a row ("plugin"). */
  listField: string;
  rowField: string;
  key: (row: TRow) => string;
}) {
  const { endpoint, listField, rowField, key } = options;
  const [rows, setRows] = useState(options.initial);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);

  const refresh = async () => setRows((await apiRequest<Record<string, TRow[]>>(endpoint))[listField] ?? []);
  const replace = (updated: TRow) => setRows((current) => current.map((row) => (key(row) === key(updated) ? updated : row)));

  const toggle = async (row: TRow) => {
    setPending(key(row));
    setError(null);
    try {
      const response = await apiRequest<Record<string, TRow>>(`${endpoint}/${encodeURIComponent(key(row))}`, { method: "PATCH", body: { enabled: !row.enabled } });
      replace(response[rowField]!);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(null);
    }
  };

  return { rows, error, pending, refresh, replace, toggle };
}

import type { ReactNode } from "react";

/**
 * The admin pages' tables (users, job runs, scheduled jobs): a bordered, scrolling table with a
 * caption for assistive technology, a header row, and a last column of actions. A column may show
 * only from a screen width on (`from`); below it the first cell carries what matters of the hidden
 * ones, so a phone still reads the row.
 */
export type TBreakpoint = "sm" | "md" | "lg" | "xl";
export type TColumn = { label: string; from?: TBreakpoint };

const SHOWN_FROM: Record<TBreakpoint, string> = {
  sm: "hidden sm:table-cell",
  md: "hidden md:table-cell",
  lg: "hidden lg:table-cell",
  xl: "hidden xl:table-cell",
};

const EDGE = "px-3 sm:px-4";

function columnClass(from: TBreakpoint | undefined, rest: string): string {
  return [from ? `${SHOWN_FROM[from]} px-4` : EDGE, rest].filter(Boolean).join(" ");
}

export function AdminTable({ caption, columns, alignTop = false, children }: { caption: string; columns: TColumn[]; alignTop?: boolean; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-neutral-50 text-xs font-medium text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={columnClass(column.from, "py-2.5")}>
                {column.label}
              </th>
            ))}
            <th scope="col" className={`${EDGE} py-2.5 text-right`}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className={["divide-y divide-neutral-200 dark:divide-neutral-800", alignTop ? "[&_td]:align-top" : ""].join(" ")}>{children}</tbody>
      </table>
    </div>
  );
}

/** A cell under a column of AdminTable: the same `from` as its column; muted text unless `strong`. */
export function Cell({ from, className, title, children }: { from?: TBreakpoint; className?: string; title?: string; children: ReactNode }) {
  return (
    <td className={columnClass(from, `py-3 ${from ? "text-neutral-600 dark:text-neutral-400" : ""} ${className ?? ""}`)} title={title}>
      {children}
    </td>
  );
}

/** The last cell of a row: its buttons, stacked on a phone and in a row from sm on. */
export function ActionsCell({ children }: { children: ReactNode }) {
  return (
    <td className={`${EDGE} py-3`}>
      <div className="flex flex-col items-stretch justify-end gap-2 sm:flex-row sm:items-center">{children}</div>
    </td>
  );
}

/** What an admin table says instead when it has no rows. */
export function EmptyTable({ children }: { children: ReactNode }) {
  return <p className="rounded-lg border border-dashed border-neutral-300 px-4 py-6 text-center text-sm text-neutral-600 dark:border-neutral-700 dark:text-neutral-400">{children}</p>;
}

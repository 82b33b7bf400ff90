"use client";

import Link from "next/link";
import type { Ref } from "react";
import { MobileMenuButton } from "@/components/app-shell/sidebar-context";
import { DownloadIcon, StepsIcon } from "@/components/ui/icons";
import { Menu } from "@/components/ui/menu";
import type { TChatSession } from "./types";

const HEADER_BUTTON =
  "inline-flex h-8 items-center justify-center gap-1.5 rounded-lg px-2.5 text-xs font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:focus-visible:outline-blue-400";

/**
 * The chat's one header: on a phone it also holds the menu button (the app bar is not shown on
 * chat pages), so the conversation gets the height. Export downloads the chat; Steps opens the trace.
 */
export function ChatHeader({
  session,
  title,
  stepsOpen,
  stepsPanelId,
  stepsButton,
  onToggleSteps,
}: {
  session: TChatSession;
  title: string;
  stepsOpen: boolean;
  stepsPanelId: string;
  stepsButton: Ref<HTMLButtonElement>;
  onToggleSteps: () => void;
}) {
  const exportPath = (format: "markdown" | "json") => `/api/sessions/${encodeURIComponent(session.id)}/export?format=${format}`;
  return (
    <header className="flex h-14 shrink-0 items-center gap-1 border-b border-neutral-200 px-2 sm:gap-2 sm:px-4 dark:border-neutral-800">
      <MobileMenuButton />
      <div className="min-w-0 flex-1 px-1">
        <h1 className="truncate text-sm font-semibold text-neutral-900 sm:text-base dark:text-neutral-50" title={title}>
          {title}
        </h1>
        {session.parentSessionId ? (
          <p className="truncate text-xs text-neutral-500 dark:text-neutral-400">
            {session.trigger === "agent" ? "Worker (sub-agent) of " : "Forked from "}
            <Link href={`/chat/${session.parentSessionId}`} className="underline underline-offset-2 hover:text-neutral-900 dark:hover:text-neutral-100">
              {session.trigger === "agent" ? "the chat that delegated it" : "the original chat"}
            </Link>
            {session.forkedFromStep ? ` at ${session.forkedFromStep}` : ""}
          </p>
        ) : null}
      </div>
      <Menu
        label="Export"
        icon={<DownloadIcon size="sm" />}
        buttonClassName={`${HEADER_BUTTON} text-neutral-700 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800`}
        items={[
          { label: "Download as Markdown", href: exportPath("markdown"), download: true },
          { label: "Download as JSON", href: exportPath("json"), download: true },
        ]}
      />
      <button
        ref={stepsButton}
        type="button"
        aria-expanded={stepsOpen}
        aria-controls={stepsPanelId}
        onClick={onToggleSteps}
        className={[
          HEADER_BUTTON,
          stepsOpen
            ? "bg-neutral-900 text-white hover:bg-neutral-700 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-white"
            : "border border-neutral-300 bg-white text-neutral-900 hover:bg-neutral-100 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800",
        ].join(" ")}
      >
        <StepsIcon size="sm" />
        <span className="max-sm:sr-only">Steps</span>
      </button>
    </header>
  );
}

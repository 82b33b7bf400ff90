"use client";

import { useState } from "react";
import { THEME_COOKIE, type TTheme } from "./theme";

const OPTIONS: { value: TTheme; label: string }[] = [
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
  { value: "system", label: "System" },
];

/** Puts the theme on the page at once and remembers it for the server's next render. */
function applyTheme(theme: TTheme) {
  const root = document.documentElement;
  root.classList.remove("light", "dark");
  if (theme !== "system") root.classList.add(theme);
  document.cookie = `${THEME_COOKIE}=${theme}; Path=/; Max-Age=31536000; SameSite=Lax`;
}

/** Light / Dark / System, as a radio group (arrow keys move, one Tab stop). */
export function ThemeToggle({ initial }: { initial: TTheme }) {
  const [theme, setTheme] = useState(initial);

  function choose(next: TTheme) {
    setTheme(next);
    applyTheme(next);
  }

  return (
    <fieldset className="min-w-0">
      <legend className="sr-only">Theme</legend>
      <div className="grid grid-cols-3 gap-0.5 rounded-lg bg-neutral-200/70 p-0.5 dark:bg-neutral-800">
        {OPTIONS.map((option) => (
          <label
            key={option.value}
            className={[
              "flex h-7 cursor-pointer items-center justify-center rounded-md text-xs font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-blue-600",
              theme === option.value ? "bg-white text-neutral-900 shadow-xs dark:bg-neutral-950 dark:text-white" : "text-neutral-600 hover:text-neutral-900 dark:text-neutral-400 dark:hover:text-white",
            ].join(" ")}
          >
            <input type="radio" name="theme" value={option.value} checked={theme === option.value} onChange={() => choose(option.value)} className="sr-only" />
            {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

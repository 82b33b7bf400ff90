/**
 * The colour theme: "system" follows the device; "light" and "dark" put a class on <html> that
 * app/globals.css's dark variant reads. The choice is a cookie, so the server renders the page in
 * it from the first byte (no flash, and no inline script, which the CSP would refuse anyway).
 */
export type TTheme = "system" | "light" | "dark";

export const THEME_COOKIE = "xclaw-theme";

export function parseTheme(value: string | undefined): TTheme {
  return value === "light" || value === "dark" ? value : "system";
}

/** The class for <html>: nothing for "system". */
export function themeClass(theme: TTheme): string | undefined {
  return theme === "system" ? undefined : theme;
}

/**
 * A full page load rather than a client-side transition. Used right after the session cookie
 * changes (sign-in, sign-out): the server must render every layout again with the new cookie, and
 * no client cache may keep showing the previous user's pages.
 */
export function hardNavigate(path: "/" | "/sign-in") {
  window.location.assign(path);
}

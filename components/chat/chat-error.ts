/**
 * Readable text for a useChat error. DefaultChatTransport turns a failed response into
 * `new Error(await response.text())`, so a JSON API error arrives as its raw body; a run that
 * fails after streaming started arrives as the stream's own error text.
 */
export type TChatError = { message: string; code?: string; /** The server answered with an error before any stream started. */ http: boolean };

const UNREACHABLE = "Could not reach the server. Check your connection and try again.";
const SESSION_ENDED = "Your session has ended. Sign in again to continue.";
const UNEXPECTED = "Something went wrong. Try again; if it keeps happening, tell an administrator.";

export function describeChatError(error: Error): TChatError {
  const text = error.message.trim();
  if (text.startsWith("{")) {
    try {
      const body: unknown = JSON.parse(text);
      const error = body && typeof body === "object" && "error" in body && body.error && typeof body.error === "object" ? body.error : {};
      const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
      if (code === "unauthorized") return { message: SESSION_ENDED, code, http: true };
      const message = "message" in error && typeof error.message === "string" ? error.message : UNEXPECTED;
      return { message, code, http: true };
    } catch {
      // not JSON after all: fall through
    }
  }
  if (error.name === "TypeError" && /fetch|network|load failed/i.test(text)) return { message: UNREACHABLE, http: false };
  if (!text) return { message: UNEXPECTED, http: false };
  // An HTML error page from a proxy or the framework: the request failed before any stream.
  if (text.startsWith("<")) return { message: UNEXPECTED, http: true };
  return { message: text, http: false };
}

import { fetch as undiciFetch } from "undici";

/**
 * fetch for the server's own calls to model and embedding providers, found with a heap snapshot
 * at 1,000 open chats (ARCHITECTURE.md, "Under load"):
 * - With redirects followed (fetch's default), the fetch standard clones the request before
 *   sending it, so a redirect could send the body again: each waiting model call kept a teed copy
 *   of its body, a 25 KB chunk nobody would read. Provider APIs do not redirect a POST, so these
 *   calls refuse redirects instead (`redirect: "error"`), which sends the request as it is. A base
 *   URL that redirects fails with a network error: configure the final URL.
 * - Inside a route handler Next.js patches the global fetch (request caching, tracing), and a run
 *   started by a request keeps that request's async context for its whole life, so every model
 *   call went through the patch. undici's fetch is what Node's fetch is built on, unpatched.
 */
export const serverFetch: typeof fetch = (input, init) =>
  undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), redirect: init?.redirect ?? "error" }) as unknown as Promise<Response>;

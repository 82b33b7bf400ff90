import { fetch as undiciFetch } from "undici";

/**
 * fetch for the server's own calls to model and embedding providers, found with a heap snapshot
 * at 1,000 open chats (ARCHITECTURE.md, "Under load"):
 * - With redirects followed (fetch's default), the fetch standard clones the request before
 *   sending it, so a redirect could send the body again: each waiting model call kept a teed copy
 *   of its body, a 25 KB chunk nobody would read. Provider APIs do not redirect a POST, so these
 *   calls refuse redirects instead (`redirect: "error"`), which sends the request as it is.
 * - Inside a route handler Next.js patches the global fetch (request caching, tracing), and a run
 *   started by a request keeps that request's async context for its whole life, so every model
 *   call went through the patch. undici's fetch is what Node's fetch is built on, unpatched.
 *
 * A base URL that redirects (http → https, a moved path) would otherwise surface as the SDKs'
 * "Connection error." and be retried: it is answered as a 400 that says what to change.
 */
export const serverFetch: typeof fetch = async (input, init) => {
  try {
    return (await undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: init?.redirect ?? "error",
    })) as unknown as Response;
  } catch (error) {
    if (!((error as { cause?: { message?: string } }).cause?.message === "unexpected redirect")) throw error;
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const message = `${url.origin} answered with a redirect, which xclaw does not follow for model and embedding calls: set the provider's base URL to the address it redirects to.`;
    return new Response(JSON.stringify({ error: { message, type: "invalid_request_error" } }), { status: 400, headers: { "content-type": "application/json" } });
  }
};

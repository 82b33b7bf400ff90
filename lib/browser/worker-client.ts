import { environment } from "@/lib/config/environment";
import type { TBrowserAction, TBrowserEgress, TBrowserObservation, TWorkerHealth } from "./protocol";

/**
 * The app's side of the browser worker: a thin HTTP client. It holds no browser state; the worker
 * keeps one context per session. Actions of one session are sent one after the other in the order
 * the tools were called, so two calls from one model turn cannot interleave on the page.
 */
export class BrowserWorkerClient {
  private readonly url: string;
  private readonly secret: string;
  private readonly timeoutMs: number;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(options: { url: string; secret: string; timeoutMs?: number }) {
    this.url = options.url.replace(/\/+$/, "");
    this.secret = options.secret;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  private async request<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (timeout.aborted) throw new Error(`the browser worker did not answer within ${Math.round(this.timeoutMs / 1000)} s`);
      throw new Error(`the browser worker is not reachable at ${this.url} (${(error as Error).cause ?? (error as Error).message})`);
    }
    const payload = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
    if (!response.ok) throw new Error(`the browser worker refused the request: ${payload.error?.message ?? `HTTP ${response.status}`}`);
    return payload;
  }

  /**
   * One action. `egress`: where the session may send data without asking (the worker refuses the
   * rest unless the action was approved); without it nothing is allowed yet.
   */
  act(options: { userId: string; sessionId: string; action: TBrowserAction; egress?: TBrowserEgress; signal?: AbortSignal }): Promise<TBrowserObservation> {
    const key = `${options.userId}\u0000${options.sessionId}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const body = { userId: options.userId, sessionId: options.sessionId, action: options.action, egress: options.egress ?? { mode: "ask", allowedOrigins: [] } };
    const send = () => this.request<TBrowserObservation>("POST", "/v1/act", body, options.signal);
    const next = previous.then(send, send);
    const settled = next.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return next;
  }

  /** Closes the session's browser context (its pages and cookies); call it when a chat session ends. */
  async closeSession(options: { userId: string; sessionId: string }): Promise<boolean> {
    return (await this.request<{ closed: boolean }>("POST", "/v1/close", options)).closed;
  }

  health(): Promise<TWorkerHealth> {
    return this.request<TWorkerHealth>("GET", "/v1/health");
  }
}

/** The worker the environment points at (BROWSER_WORKER_URL + BROWSER_WORKER_SECRET), if any. */
export function browserWorkerFromEnvironment(options: { timeoutMs?: number } = {}): BrowserWorkerClient | undefined {
  const { BROWSER_WORKER_URL: url, BROWSER_WORKER_SECRET: secret } = environment();
  if (!url || !secret) return undefined;
  return new BrowserWorkerClient({ url, secret, timeoutMs: options.timeoutMs });
}

/** Ends a chat session's browser context; harmless when there is no worker or no context. */
export async function closeBrowserSession(options: { userId: string; sessionId: string }): Promise<void> {
  await browserWorkerFromEnvironment()
    ?.closeSession(options)
    .catch(() => undefined);
}

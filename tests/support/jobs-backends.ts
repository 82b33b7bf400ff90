import type { Inngest } from "inngest";
import { cancelJobRun } from "@/lib/jobs/admin-runs";
import type { TSendEventInput } from "@/lib/jobs/define-job";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import type { TJobRegistry } from "@/lib/jobs/job-registry";
import { prepareEvents } from "@/lib/jobs/prepare-events";
import { sendToInngest } from "@/lib/jobs/send-event";
import { waitForRun } from "./jobs";

/**
 * The two job backends behind one small interface, so that tests/support/jobs-semantics-suite.ts
 * runs the same test bodies on both: the embedded runner (runs in this test file's database) and
 * a real Inngest server (runs held by Inngest, read through its GraphQL API).
 */
/** SKIPPED only on Inngest: it records a run for an event that a singleton skipped. */
export type TRunStatus = "QUEUED" | "RUNNING" | "SLEEPING" | "COMPLETED" | "FAILED" | "CANCELLED" | "SKIPPED";
export type TRunView = { status: TRunStatus; output: unknown; error: string | null };
/** One sent event: its id for the backend, and (embedded runner) the run it created, if any. */
export type TSent = { eventId: string; runId?: string };

export type TJobsBackend = {
  name: "embedded runner" | "Inngest";
  /** Sends through the app's send path (validation first); one entry per event, in order. */
  send(events: TSendEventInput | readonly TSendEventInput[]): Promise<TSent[]>;
  /** Waits until the event's run reaches one of `statuses` (a deadline, not a timing assertion). */
  waitForRun(sent: TSent, statuses?: TRunStatus[], timeoutMs?: number): Promise<TRunView>;
  /** How many runs the event started (after it was processed). */
  runCount(sent: TSent): Promise<number>;
  cancel(sent: TSent): Promise<void>;
};

const ENDED: TRunStatus[] = ["COMPLETED", "FAILED", "CANCELLED", "SKIPPED"];

export function embeddedBackend(registry: TJobRegistry): TJobsBackend {
  return {
    name: "embedded runner",
    async send(events) {
      // One at a time, so that each event's run (or none: a duplicate id, a singleton skip) is known.
      const list = Array.isArray(events) ? events : [events as TSendEventInput];
      // Validate all first (nothing is queued if one is invalid), like a single send would.
      prepareEvents(registry, list);
      const sent: TSent[] = [];
      for (const event of list) {
        const result = await enqueueJobEvents(registry, event);
        sent.push({ eventId: result.ids[0]!, runId: result.runIds[0] });
      }
      return sent;
    },
    async waitForRun(sent, statuses = ENDED, timeoutMs) {
      if (!sent.runId) throw new Error(`event ${sent.eventId} started no run`);
      const run = await waitForRun(sent.runId, statuses.filter((status) => status !== "SKIPPED"), timeoutMs);
      return { status: run.status, output: run.output, error: run.error };
    },
    runCount: async (sent) => (sent.runId ? 1 : 0),
    async cancel(sent) {
      await cancelJobRun(sent.runId!, "a test");
    },
  };
}

type TGqlRun = { id: string; status: string; output: string | null };

/** Inngest's GraphQL API (the REST run list is cached for 15 s, too stale for tests). */
export async function inngestGraphql<T>(baseUrl: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${baseUrl}/v0/gql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (!response.ok || body.errors?.length) throw new Error(`Inngest GraphQL: ${response.status} ${JSON.stringify(body.errors)}`);
  return body.data!;
}

async function eventRuns(baseUrl: string, eventId: string): Promise<{ stored: boolean; runIds: string[] }> {
  let data: { eventV2: { runs: { id: string }[] | null } | null };
  try {
    data = await inngestGraphql(baseUrl, "query($id: ULID!) { eventV2(id: $id) { runs { id } } }", { id: eventId });
  } catch (error) {
    // Not stored yet: the server answers with an error rather than null.
    if (/event not found|no rows in result set/.test((error as Error).message)) return { stored: false, runIds: [] };
    throw error;
  }
  return { stored: Boolean(data.eventV2), runIds: (data.eventV2?.runs ?? []).map((run) => run.id) };
}

/** A run's output as the SDK reported it: the returned value, or the error it failed with. */
function readOutput(run: TGqlRun): { output: unknown; error: string | null } {
  if (run.output === null || run.output === "") return { output: null, error: null };
  let value: unknown = run.output;
  try {
    value = JSON.parse(run.output);
  } catch {
    return run.status === "FAILED" ? { output: null, error: run.output } : { output: run.output, error: null };
  }
  if (Array.isArray(value) && value[0]?.op === "RunComplete") value = value[0].data;
  if (run.status === "FAILED") {
    const failure = value as { message?: string; error?: { message?: string } };
    return { output: null, error: failure?.message ?? failure?.error?.message ?? JSON.stringify(value) };
  }
  return { output: value ?? null, error: null };
}

export async function readInngestRun(baseUrl: string, runId: string): Promise<TRunView> {
  let run: TGqlRun | null;
  try {
    ({ run } = await inngestGraphql<{ run: TGqlRun | null }>(baseUrl, "query($id: String!) { run(runID: $id) { id status output } }", { id: runId }));
  } catch (error) {
    // Scheduled but not started yet.
    if ((error as Error).message.includes("no rows in result set")) return { status: "QUEUED", output: null, error: null };
    throw error;
  }
  if (!run) return { status: "QUEUED", output: null, error: null };
  return { status: run.status as TRunStatus, ...readOutput(run) };
}

export function inngestBackend(baseUrl: string, client: Inngest, registry: TJobRegistry): TJobsBackend {
  async function runIdOf(sent: TSent, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { runIds } = await eventRuns(baseUrl, sent.eventId);
      if (runIds.length) return runIds[0]!;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`event ${sent.eventId} started no run within ${timeoutMs} ms`);
  }
  return {
    name: "Inngest",
    async send(events) {
      const result = await sendToInngest(client, registry, events);
      return result.ids.map((eventId) => ({ eventId }));
    },
    async waitForRun(sent, statuses = ENDED, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      const runId = await runIdOf(sent, timeoutMs);
      let view: TRunView | undefined;
      let settleUntil: number | undefined;
      while (Date.now() < deadline) {
        view = await readInngestRun(baseUrl, runId);
        // The status can be stored a moment before the output: give the output 3 s to follow.
        const ended = view.status === "COMPLETED" || view.status === "FAILED";
        const settling = ended && view.output === null && view.error === null && Date.now() < (settleUntil ??= Date.now() + 3_000);
        if (!settling && statuses.includes(view.status)) return view;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Inngest run ${runId} did not reach ${statuses.join("|")} within ${timeoutMs} ms; it is ${view?.status} (${view?.error ?? "no error"})`);
    },
    async runCount(sent) {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const { stored, runIds } = await eventRuns(baseUrl, sent.eventId);
        if (stored) return runIds.length;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Inngest never stored event ${sent.eventId}`);
    },
    async cancel(sent) {
      const runId = await runIdOf(sent, 10_000);
      await inngestGraphql(baseUrl, "mutation($id: ULID!) { cancelRun(runID: $id) { id } }", { id: runId });
    },
  };
}

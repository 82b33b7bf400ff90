import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { db, dbPool } from "@/lib/db/client";
import { localRunCount } from "@/lib/runs/local-runs";
import { processSingleton } from "@/lib/process-singleton";

/**
 * The process's metrics, one registry per process (processSingleton: Next.js loads route handlers
 * and instrumentation as separate module graphs, which must count into the same registry), read
 * in Prometheus text by GET /api/metrics. Names follow the OpenTelemetry GenAI conventions where
 * they define one (gen_ai_client_*), xclaw_* otherwise. Labels hold names an administrator or the
 * code chose (provider, model, tool, trigger, status), never user ids or free text (labels.ts).
 *
 * Gauges that describe shared state (approvals waiting, the job queue) are read from the database
 * when scraped, so every replica reports the same figures; event-loop lag, memory and the
 * database pool are this process's own (prom-client's default metrics, the pg pool).
 */
const SECONDS_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
const TOOL_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

function makeMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    operationDuration: new Histogram({
      name: "gen_ai_client_operation_duration_seconds",
      help: "Duration of GenAI operations (one model call, retries and fallbacks included)",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_response_model", "error_type"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    tokenUsage: new Histogram({
      name: "gen_ai_client_token_usage",
      help: "Tokens per model call by type (input, output; cache_read and cache_creation are part of input)",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_response_model", "gen_ai_token_type"] as const,
      buckets: TOKEN_BUCKETS,
      registers,
    }),
    timeToFirstChunk: new Histogram({
      name: "gen_ai_client_operation_time_to_first_chunk_seconds",
      help: "Time from a model call's start to its first streamed text",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    toolDuration: new Histogram({
      name: "xclaw_tool_duration_seconds",
      help: "Tool call durations by tool and outcome (ok, error)",
      labelNames: ["tool", "outcome"] as const,
      buckets: TOOL_BUCKETS,
      registers,
    }),
    runs: new Counter({ name: "xclaw_runs_total", help: "Runs ended, by trigger and end status", labelNames: ["trigger", "status"] as const, registers }),
    admissionRefusals: new Counter({
      name: "xclaw_run_admission_refusals_total",
      help: "Runs refused before they started: process_limit (runs.maxConcurrent), user_limit (runs.maxConcurrentPerUser), draining (restarting)",
      labelNames: ["reason"] as const,
      registers,
    }),
    activeRuns: new Gauge({
      name: "xclaw_runs_active",
      help: "Runs this process is executing",
      registers,
      collect() {
        this.set(localRunCount());
      },
    }),
    // Read before the gauges below query the database, so the scrape's own queries are not counted.
    databasePoolWaiting: new Gauge({
      name: "xclaw_db_pool_waiting",
      help: "Queries waiting for a connection of this process's database pool",
      registers,
      collect() {
        this.set(dbPool().waitingCount);
      },
    }),
    databasePoolConnections: new Gauge({
      name: "xclaw_db_pool_connections",
      help: "Connections of this process's database pool, by state (idle, busy)",
      labelNames: ["state"] as const,
      registers,
      collect() {
        const pool = dbPool();
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "busy" }, pool.totalCount - pool.idleCount);
      },
    }),
    approvalsWaiting: new Gauge({
      name: "xclaw_approvals_waiting",
      help: "Tool calls waiting for their owner's approval (all users)",
      registers,
      async collect() {
        await orKeep(async () => this.set(await db().approval.count({ where: { status: "PENDING" } })));
      },
    }),
    jobQueueDepth: new Gauge({
      name: "xclaw_job_queue_depth",
      help: "Embedded job runs due and waiting to be claimed",
      registers,
      async collect() {
        await orKeep(async () => this.set(await db().jobRun.count({ where: dueJobRuns() })));
      },
    }),
    jobQueueLag: new Gauge({
      name: "xclaw_job_queue_lag_seconds",
      help: "How long the oldest due job run has waited past its time (0: none waiting)",
      registers,
      async collect() {
        await orKeep(async () => {
          const oldest = (await db().jobRun.aggregate({ where: dueJobRuns(), _min: { runAt: true } }))._min.runAt;
          this.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
        });
      },
    }),
  };
}

/** Queued runs whose time has come (a run sleeping or backing off until later is not late). */
const dueJobRuns = () => ({ status: "QUEUED" as const, runAt: { lte: new Date() } });

/** A gauge read from the database keeps its last value when the database does not answer: a scrape still succeeds. */
async function orKeep(read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch {
    // The database's own health is /api/health's business.
  }
}

export type TMetrics = ReturnType<typeof makeMetrics>;

export function metrics(): TMetrics {
  return processSingleton("telemetry.metrics", makeMetrics);
}

/** The metrics in Prometheus text format, and its content type. */
export async function scrapeMetrics(): Promise<{ text: string; contentType: string }> {
  const { registry } = metrics();
  return { text: await registry.metrics(), contentType: registry.contentType };
}

import { NonRetriableError } from "inngest";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/define-job";

/**
 * Job definitions used by the jobs tests, on the embedded runner (in the test process and in
 * spawned worker processes) and on Inngest through @inngest/test. Their steps report to the
 * fixture server (tests/support/jobs-fixture-server.ts) at JOBS_FIXTURE_URL.
 */
async function post(path: string, body: unknown, signal?: AbortSignal): Promise<{ count?: number }> {
  const url = process.env.JOBS_FIXTURE_URL;
  if (!url) throw new Error("JOBS_FIXTURE_URL is not set");
  const response = await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, signal });
  return (await response.json()) as { count?: number };
}

export async function hit(key: string): Promise<number> {
  return (await post("/hit", { key })).count!;
}

/** Work that takes `ms`, reported as a span so overlaps can be counted. Ignores cancellation on
 *  purpose: a cancelled singleton must still not overlap with its replacement. */
async function span(key: string, id: string, ms: number): Promise<void> {
  await post("/span", { key, id, phase: "start", worker: process.pid });
  await new Promise((resolve) => setTimeout(resolve, ms));
  await post("/span", { key, id, phase: "end", worker: process.pid });
}

const ZKey = z.strictObject({ key: z.string() });

export const stepsJob = defineJob({ id: "test.steps", trigger: { event: "test/steps" }, schema: ZKey }, async ({ event, step }) => {
  const first = await step.run("first", () => hit(`${event.data.key}:first`));
  const second = await step.run("second", () => hit(`${event.data.key}:second`));
  return { first, second };
});

export const flakyJob = defineJob({ id: "test.flaky", trigger: { event: "test/flaky" }, schema: ZKey, retries: 2 }, async ({ event, step }) => {
  const before = await step.run("before", () => hit(`${event.data.key}:before`));
  const flaky = await step.run("flaky", async () => {
    const count = await hit(`${event.data.key}:flaky`);
    if (count < 2) throw new Error(`flaky failure ${count}`);
    return count;
  });
  return { before, flaky };
});

export const sleeperJob = defineJob({ id: "test.sleeper", trigger: { event: "test/sleeper" }, schema: ZKey }, async ({ event, step }) => {
  const before = await step.run("before", () => hit(`${event.data.key}:before`));
  await step.sleep("nap", "2s");
  const after = await step.run("after", () => hit(`${event.data.key}:after`));
  return { before, after };
});

export const childJob = defineJob(
  { id: "test.child", trigger: { event: "test/child" }, schema: z.strictObject({ n: z.number(), fail: z.boolean().optional() }), retries: 0 },
  async ({ event, step }) => {
    if (event.data.fail) throw new NonRetriableError("the child refuses");
    return step.run("double", () => event.data.n * 2);
  },
);

export const parentJob = defineJob(
  { id: "test.parent", trigger: { event: "test/parent" }, schema: z.strictObject({ n: z.number(), fail: z.boolean().optional() }), retries: 0 },
  async ({ event, step }) => {
    const doubled = await step.invoke("call-child", { job: childJob, data: { n: event.data.n, fail: event.data.fail }, timeout: "1m" });
    return { doubled };
  },
);

export const fanoutJob = defineJob({ id: "test.fanout", trigger: { event: "test/fanout" }, schema: ZKey, retries: 0 }, async ({ event, step }) => {
  const sent = await step.sendEvent("emit", { name: "test/steps", data: { key: `${event.data.key}:child` } });
  return sent;
});

export const badFanoutJob = defineJob({ id: "test.bad-fanout", trigger: { event: "test/bad-fanout" }, schema: ZKey, retries: 0 }, async ({ step }) => {
  await step.sendEvent("emit", { name: "test/steps", data: { key: 42 } });
  return "unreachable";
});

export const cronJob = defineJob({ id: "test.cron", trigger: { cron: "30 3 * * *", tz: "Europe/Berlin" } }, async ({ event, step }) =>
  step.run("tick", () => event.data),
);

// --- bad input -------------------------------------------------------------------------------

export const throwsStringJob = defineJob({ id: "test.throws-string", trigger: { event: "test/throws-string" }, schema: ZKey, retries: 0 }, async () => {
  throw "a plain string, not an Error";
});

export const unserialisableJob = defineJob({ id: "test.unserialisable", trigger: { event: "test/unserialisable" }, schema: ZKey }, async ({ event, step }) => {
  await step.run("count", () => hit(`${event.data.key}:count`));
  return step.run("bigint", () => ({ total: BigInt(1) }));
});

export const oversizedJob = defineJob({ id: "test.oversized", trigger: { event: "test/oversized" }, schema: ZKey }, async ({ event, step }) => {
  await step.run("count", () => hit(`${event.data.key}:count`));
  return step.run("huge", () => "x".repeat(2 * 1024 * 1024));
});

/** Not in fixtureJobs: the runner does not know it (like a job removed in a newer app version). */
export const retiredJob = defineJob({ id: "test.retired", trigger: { event: "test/retired" }, schema: ZKey }, async () => "never runs");

export const invokesUnknownJob = defineJob({ id: "test.invokes-unknown", trigger: { event: "test/invokes-unknown" }, schema: ZKey }, async ({ event, step }) =>
  step.invoke("call", { job: retiredJob, data: { key: event.data.key } }),
);

export const failsOnceJob = defineJob({ id: "test.fails-once", trigger: { event: "test/fails-once" }, schema: ZKey, retries: 0 }, async ({ event, step }) => {
  const before = await step.run("before", () => hit(`${event.data.key}:before`));
  const maybe = await step.run("maybe", async () => {
    const count = await hit(`${event.data.key}:maybe`);
    if (count < 2) throw new Error("not this time");
    return count;
  });
  return { before, maybe };
});

// --- concurrency, singletons, crashes --------------------------------------------------------

export const limitedJob = defineJob(
  { id: "test.limited", trigger: { event: "test/limited" }, schema: z.strictObject({ n: z.number() }), concurrency: { limit: 2 } },
  async ({ event, step }) => step.run("work", () => span("limited", String(event.data.n), 150)),
);

export const singletonJob = defineJob(
  {
    id: "test.singleton",
    trigger: { event: "test/singleton" },
    schema: z.strictObject({ n: z.number(), group: z.string() }),
    singleton: { key: "event.data.group", mode: "cancel" },
  },
  async ({ event, step }) => {
    await step.run("work", () => span(`singleton:${event.data.group}`, String(event.data.n), 200));
    await step.run("more", () => span(`singleton:${event.data.group}`, `${event.data.n}b`, 100));
  },
);

export const onceJob = defineJob({ id: "test.once", trigger: { event: "test/once" }, schema: z.strictObject({}) }, async ({ event, step }) =>
  step.run("count", () => hit(`once:${event.id}`)),
);

export const crashJob = defineJob({ id: "test.crash", trigger: { event: "test/crash" }, schema: ZKey }, async ({ event, step }) => {
  const one = await step.run("one", () => hit(`${event.data.key}:one`));
  const two = await step.run("two", async () => (await post("/block", { key: `${event.data.key}:two` })).count);
  return { one, two };
});

export const waitsForCancelJob = defineJob(
  { id: "test.cancellable", trigger: { event: "test/cancellable" }, schema: ZKey, retries: 0 },
  async ({ event, step, signal }) => {
    await step.run("wait", async () => {
      await hit(`${event.data.key}:started`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 60_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          void hit(`${event.data.key}:aborted`).finally(() => reject(signal.reason));
        });
      });
    });
    await step.run("after", () => hit(`${event.data.key}:after`));
  },
);

/** Waits `ms`, or until the run is cancelled (then reports "aborted" and gives up). */
function abortableWait(key: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      void hit(`${key}:aborted`).finally(() => reject(signal.reason));
    });
  });
}

export const exclusiveJob = defineJob(
  { id: "test.exclusive", trigger: { event: "test/exclusive" }, schema: ZKey, concurrency: { limit: 1 }, timeouts: { start: "1s" }, retries: 0 },
  async ({ event, step, signal }) => step.run("hold", () => abortableWait(event.data.key, 1_500, signal)),
);

export const slowJob = defineJob(
  { id: "test.slow", trigger: { event: "test/slow" }, schema: ZKey, timeouts: { finish: "1s" }, retries: 0 },
  async ({ event, step, signal }) => {
    await step.run("slow", () => abortableWait(event.data.key, 10_000, signal));
    await step.run("after", () => hit(`${event.data.key}:after`));
  },
);

// --- semantics on both backends (tests/support/jobs-semantics-suite.ts) -------------------

/** Fails for good on its first attempt although it has retries left. */
export const refusesJob = defineJob({ id: "test.refuses", trigger: { event: "test/refuses" }, schema: ZKey, retries: 3 }, async ({ event, step }) =>
  step.run("refuse", async () => {
    await hit(`${event.data.key}:refuse`);
    throw new NonRetriableError("refused for good");
  }),
);

export const napUntilJob = defineJob({ id: "test.nap-until", trigger: { event: "test/nap-until" }, schema: ZKey }, async ({ event, step }) => {
  const wakeAt = await step.run("plan", async () => {
    await hit(`${event.data.key}:plan`);
    return new Date(Date.now() + 1_500).toISOString();
  });
  await step.sleepUntil("nap", wakeAt);
  const after = await step.run("after", async () => {
    await hit(`${event.data.key}:after`);
    return Date.now() - new Date(wakeAt).getTime();
  });
  return { wakeAt, afterWake: after >= 0, lateByMs: after };
});

/** At most one run per group at a time; different groups run side by side. */
export const perKeyJob = defineJob(
  {
    id: "test.per-key",
    trigger: { event: "test/per-key" },
    schema: z.strictObject({ n: z.number(), group: z.string() }),
    concurrency: { limit: 1, key: "event.data.group" },
  },
  async ({ event, step }) => step.run("work", () => span(`per-key:${event.data.group}`, String(event.data.n), 300)),
);

/** "skip": an event for a group whose run is still going starts nothing. */
export const skipJob = defineJob(
  {
    id: "test.skip",
    trigger: { event: "test/skip" },
    schema: z.strictObject({ n: z.number(), group: z.string() }),
    singleton: { key: "event.data.group", mode: "skip" },
  },
  async ({ event, step }) => step.run("work", () => hit(`skip:${event.data.group}:${event.data.n}`).then(() => span(`skip:${event.data.group}`, String(event.data.n), 1_500))),
);

export const fixtureJobs = [
  refusesJob,
  napUntilJob,
  perKeyJob,
  skipJob,
  stepsJob,
  flakyJob,
  sleeperJob,
  childJob,
  parentJob,
  fanoutJob,
  badFanoutJob,
  cronJob,
  throwsStringJob,
  unserialisableJob,
  oversizedJob,
  invokesUnknownJob,
  failsOnceJob,
  limitedJob,
  singletonJob,
  onceJob,
  crashJob,
  waitsForCancelJob,
  exclusiveJob,
  slowJob,
];

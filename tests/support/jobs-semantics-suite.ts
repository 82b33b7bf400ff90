import { describe, expect, it } from "vitest";
import type { TJobsBackend } from "./jobs-backends";
import type { TFixtureServer } from "./jobs-fixture-server";
import { waitUntil } from "./jobs";

/**
 * The jobs semantics, one set of test bodies run on each backend: the embedded runner
 * (tests/integration/jobs-semantics.test.ts) and a real Inngest server
 * (tests/inngest/jobs-semantics.test.ts). The jobs are tests/support/jobs-fixtures.ts; their
 * steps report to the fixture server, so "ran once" means the side effect happened once, outside
 * the process that ran the step. Where Inngest genuinely behaves differently the test says so with
 * `backend.name === "Inngest"` and why; nothing is left out silently.
 * Differences in what the tests may assert: on Inngest, several jobs of the suite run side by side
 * (options.concurrent), which the embedded runner's tests do not need.
 */
export function jobsSemanticsSuite(context: () => { backend: TJobsBackend; fixture: TFixtureServer }, options: { concurrent?: boolean } = {}) {
  let counter = 0;
  const newKey = () => `s${++counter}-${Date.now()}`;
  // Inngest retries a failed step after its own backoff (15–40 s for the first retry).
  const RETRY_TIMEOUT = 120_000;

  // Concurrent on Inngest, where the tests mostly wait for the server (its retry backoff, its
  // queue's scans); every test uses keys of its own, and each job with a limit belongs to one test.
  describe("jobs semantics (same bodies on both backends)", { concurrent: options.concurrent ?? false }, () => {
    it("memoizes steps: each step's effect happens once and the run returns their stored results", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/steps", data: { key } });
      expect(await backend.waitForRun(sent!)).toMatchObject({ status: "COMPLETED", output: { first: 1, second: 1 } });
      expect([fixture.count(`${key}:first`), fixture.count(`${key}:second`)]).toEqual([1, 1]);
    });

    it("retries a failing step; the completed step before it is not run again", { timeout: RETRY_TIMEOUT + 10_000 }, async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/flaky", data: { key } });
      expect(await backend.waitForRun(sent!, undefined, RETRY_TIMEOUT)).toMatchObject({ status: "COMPLETED", output: { before: 1, flaky: 2 } });
      expect([fixture.count(`${key}:before`), fixture.count(`${key}:flaky`)]).toEqual([1, 2]);
    });

    it("does not retry a NonRetriableError although retries are left", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/refuses", data: { key } });
      const run = await backend.waitForRun(sent!);
      expect(run.status).toBe("FAILED");
      expect(run.error).toContain("refused for good");
      expect(fixture.count(`${key}:refuse`)).toBe(1);
    });

    it("a step result that is not JSON, or too large, fails the run with the reason and is not retried", async () => {
      const { backend, fixture } = context();
      const [bigint, huge] = [newKey(), newKey()];
      const sent = await backend.send([
        { name: "test/unserialisable", data: { key: bigint } },
        { name: "test/oversized", data: { key: huge } },
      ]);
      // Both jobs have retries left: a retry would keep them running well past this wait.
      const [unserialisable, oversized] = await Promise.all(sent.map((one) => backend.waitForRun(one, undefined, 20_000)));
      expect(unserialisable!.status).toBe("FAILED");
      expect(unserialisable!.error).toMatch(/step "bigint" returned a value that is not JSON-serialisable \(.*BigInt.*\)\. Return plain data/);
      expect(oversized!.status).toBe("FAILED");
      expect(oversized!.error).toContain('step "huge" returned 2.0 MB, more than the 512.0 KB a step may store (jobs.maxStepOutputBytes).');
      expect([fixture.count(`${bigint}:count`), fixture.count(`${huge}:count`)]).toEqual([1, 1]);
    });

    it("step.sleep parks the run and continues after the duration, steps around it once", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/sleeper", data: { key } });
      expect(await backend.waitForRun(sent!)).toMatchObject({ status: "COMPLETED", output: { before: 1, after: 1 } });
      expect([fixture.count(`${key}:before`), fixture.count(`${key}:after`)]).toEqual([1, 1]);
      // An ordering bound (the sleep is 2 s): a slow machine only wakes it later.
      expect(fixture.firstHitAt(`${key}:after`)! - fixture.firstHitAt(`${key}:before`)!).toBeGreaterThanOrEqual(1_900);
    });

    it("step.sleepUntil wakes the run no earlier than the given time", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/nap-until", data: { key } });
      const run = await backend.waitForRun(sent!);
      expect(run).toMatchObject({ status: "COMPLETED", output: { afterWake: true } });
      expect([fixture.count(`${key}:plan`), fixture.count(`${key}:after`)]).toEqual([1, 1]);
    });

    it("step.invoke runs the child job and returns its result", async () => {
      const { backend } = context();
      const [sent] = await backend.send({ name: "test/parent", data: { n: 21 } });
      expect(await backend.waitForRun(sent!)).toMatchObject({ status: "COMPLETED", output: { doubled: 42 } });
    });

    it("step.invoke of a failing child fails the parent with the child's error", async () => {
      const { backend } = context();
      const [sent] = await backend.send({ name: "test/parent", data: { n: 1, fail: true } });
      const run = await backend.waitForRun(sent!);
      expect(run.status).toBe("FAILED");
      expect(run.error).toContain("the child refuses");
    });

    it("step.sendEvent starts the event's job once", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/fanout", data: { key } });
      const run = await backend.waitForRun(sent!);
      expect(run.status).toBe("COMPLETED");
      expect((run.output as { ids: string[] }).ids).toHaveLength(1);
      await waitUntil(() => fixture.count(`${key}:child:second`) === 1, "the sent event's run", 30_000);
      expect(fixture.count(`${key}:child:first`)).toBe(1);
    });

    it("step.sendEvent with an event that fails its job's schema fails the run with the reason", async () => {
      const { backend } = context();
      const [sent] = await backend.send({ name: "test/bad-fanout", data: { key: newKey() } });
      const run = await backend.waitForRun(sent!);
      expect(run.status).toBe("FAILED");
      expect(run.error).toMatch(/Event "test\/steps" is not valid for job "test.steps": data.key: .*string/);
    });

    it("a delayed event (ts) starts its run no earlier than ts", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const ts = new Date(Date.now() + 2_000);
      const [sent] = await backend.send({ name: "test/steps", data: { key }, ts });
      expect((await backend.waitForRun(sent!)).status).toBe("COMPLETED");
      // An ordering bound: a slow machine only starts it later.
      expect(fixture.firstHitAt(`${key}:first`)!).toBeGreaterThanOrEqual(ts.getTime() - 50);
    });

    it("a second event with the same id starts nothing", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const id = `event-${key}`;
      const [first] = await backend.send({ name: "test/steps", data: { key }, id });
      const [second] = await backend.send({ name: "test/steps", data: { key }, id });
      await waitUntil(() => fixture.count(`${key}:second`) === 1, "the event's run to finish", 30_000);
      // A later event that has finished: a duplicate run had every chance to start by then.
      const [marker] = await backend.send({ name: "test/steps", data: { key: `${key}:marker` } });
      expect((await backend.waitForRun(marker!)).status).toBe("COMPLETED");
      // One run for the two: the embedded runner gives it to the first send; Inngest may process
      // two sends that close together in either order, so either one may be the one that ran.
      expect((await backend.runCount(first!)) + (await backend.runCount(second!))).toBe(1);
      expect([fixture.count(`${key}:first`), fixture.count(`${key}:second`)]).toEqual([1, 1]);
    });

    it("refuses unknown events and invalid payloads before sending anything", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      await expect(backend.send({ name: "test/nope", data: {} })).rejects.toThrow(/Unknown event "test\/nope": no job is triggered by it/);
      await expect(backend.send([{ name: "test/steps", data: { key } }, { name: "test/steps", data: { key: 1 } }])).rejects.toThrow(
        /Event "test\/steps" is not valid for job "test.steps": data.key:/,
      );
      const [marker] = await backend.send({ name: "test/steps", data: { key: `${key}:marker` } });
      await backend.waitForRun(marker!);
      expect(fixture.count(`${key}:first`)).toBe(0);
    });

    it("concurrency.limit: never more runs at once than the limit", { timeout: 60_000 }, async () => {
      const { backend, fixture } = context();
      const sent = await backend.send([1, 2, 3, 4, 5].map((n) => ({ name: "test/limited", data: { n } })));
      for (const one of sent) expect((await backend.waitForRun(one)).status).toBe("COMPLETED");
      expect(fixture.maxOverlap("limited")).toBeLessThanOrEqual(2);
      expect(fixture.spans("limited").filter((span) => span.phase === "end")).toHaveLength(5);
    });

    it("concurrency per key: at most one run per group at a time", { timeout: 60_000 }, async () => {
      const { backend, fixture } = context();
      const [a, b] = [newKey(), newKey()];
      const sent = await backend.send([a, b, a, b].map((group, n) => ({ name: "test/per-key", data: { n, group } })));
      for (const one of sent) expect((await backend.waitForRun(one)).status).toBe("COMPLETED");
      expect([fixture.maxOverlap(`per-key:${a}`), fixture.maxOverlap(`per-key:${b}`)]).toEqual([1, 1]);
      expect(fixture.spans(`per-key:${a}`)).toHaveLength(4);
    });

    it('singleton "skip": an event for a group whose run is going starts nothing; later ones run', async () => {
      const { backend, fixture } = context();
      const group = newKey();
      const [first] = await backend.send({ name: "test/skip", data: { n: 1, group } });
      await waitUntil(() => fixture.count(`skip:${group}:1`) === 1, "the first run to be working", 30_000);
      const [second] = await backend.send({ name: "test/skip", data: { n: 2, group } });
      expect((await backend.waitForRun(first!)).status).toBe("COMPLETED");
      const [third] = await backend.send({ name: "test/skip", data: { n: 3, group } });
      expect((await backend.waitForRun(third!)).status).toBe("COMPLETED");
      expect(fixture.count(`skip:${group}:2`)).toBe(0);
      if (backend.name === "Inngest") {
        // Differs in form only: Inngest records a run for the skipped event, with status SKIPPED.
        expect((await backend.waitForRun(second!)).status).toBe("SKIPPED");
      } else {
        expect(await backend.runCount(second!)).toBe(0);
      }
    });

    it('singleton "cancel": a new event replaces the group\'s run in progress; the last one completes', { timeout: 60_000 }, async () => {
      const { backend, fixture } = context();
      const group = newKey();
      const started = (n: number) => fixture.spans(`singleton:${group}`).some((span) => span.id === String(n) && span.phase === "start");
      const sent = [];
      for (let n = 0; n < 4; n++) {
        sent.push(...(await backend.send({ name: "test/singleton", data: { n, group } })));
        // Each next event arrives while this one's run is working.
        if (n < 3) await waitUntil(() => started(n), `run ${n} to start its step`, 30_000);
      }
      const runs = [];
      for (const one of sent) runs.push(await backend.waitForRun(one));
      expect(runs.map((run) => run.status)).toEqual(["CANCELLED", "CANCELLED", "CANCELLED", "COMPLETED"]);
      if (backend.name === "Inngest") {
        // Differs: Inngest cancels the run in progress and starts the new one at once; a step of
        // the old run already in flight in the app runs on to its end (its result is dropped), so
        // for that moment two runs' steps overlap (the embedded runner waits for it). Also seen
        // there: an event arriving before the replacing run has started is SKIPPED (even the
        // last one), which this test avoids by waiting for each run to start.
        expect(fixture.maxOverlap(`singleton:${group}`)).toBeLessThanOrEqual(2);
      } else {
        expect(fixture.maxOverlap(`singleton:${group}`)).toBe(1);
      }
    });

    it("cancelling a sleeping run: it never continues", async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/sleeper", data: { key } });
      await waitUntil(() => fixture.count(`${key}:before`) === 1, "the run to reach its sleep", 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await backend.cancel(sent!);
      expect((await backend.waitForRun(sent!)).status).toBe("CANCELLED");
      // Well past the 2 s wake-up time it has still not continued.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(fixture.count(`${key}:after`)).toBe(0);
    });

    it("timeouts.start: a run that cannot start within it is cancelled", async () => {
      const { backend } = context();
      // Concurrency 1 and 1.5 s of work each: whichever starts second has waited past its 1 s.
      const sent = await backend.send([
        { name: "test/exclusive", data: { key: newKey() } },
        { name: "test/exclusive", data: { key: newKey() } },
      ]);
      const runs = await Promise.all(sent.map((one) => backend.waitForRun(one)));
      expect(runs.map((run) => run.status).sort()).toEqual(["CANCELLED", "COMPLETED"]);
    });

    it("timeouts.finish: a run still going after it is cancelled and its next step never runs", { timeout: 60_000 }, async () => {
      const { backend, fixture } = context();
      const key = newKey();
      const [sent] = await backend.send({ name: "test/slow", data: { key } });
      expect((await backend.waitForRun(sent!, undefined, 50_000)).status).toBe("CANCELLED");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fixture.count(`${key}:after`)).toBe(0);
      // Differs: the embedded runner aborts the running step through its signal; Inngest ends the
      // run on time too, but cannot reach into the request in flight, so that step runs on to its
      // end in the app and its result is dropped (the signal never fires there).
      expect(fixture.count(`${key}:aborted`)).toBe(backend.name === "Inngest" ? 0 : 1);
    });
  });
}

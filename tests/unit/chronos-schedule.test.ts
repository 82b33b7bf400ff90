import { describe, expect, it } from "vitest";
import { latestDueSlot, nextRunAfter, parseSchedule, upcomingRuns, type TScheduleInput } from "@/lib/chronos/schedule";
import { AppError } from "@/lib/errors";

/**
 * Schedules: what is refused and why, what runs when (daylight saving time included), and which
 * slot the scheduler runs after downtime.
 */
const NOW = new Date("2026-03-01T12:00:00Z");
const MIN = { minIntervalMinutes: 5, now: NOW };

function refusal(input: TScheduleInput): string {
  try {
    parseSchedule(input, MIN);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("bad_request");
    return (error as AppError).message;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe("schedule validation", () => {
  it.each([
    [{ cron: "0 */5 * * * *", tz: "UTC" }, /6 fields; seconds are not supported/],
    [{ cron: "0 0 */5 * * * 2027", tz: "UTC" }, /7 fields; seconds and years are not supported/],
    [{ cron: "*/0 * * * *", tz: "UTC" }, /"\*\/0" has a step of 0, which never advances/],
    [{ cron: "0 1-5/0 * * *", tz: "UTC" }, /step of 0/],
    [{ cron: "@reboot", tz: "UTC" }, /@reboot is not a schedule/],
    [{ cron: "@hourly", tz: "UTC" }, /is a shortcut; write the five fields/],
    [{ cron: "0 9 * *", tz: "UTC" }, /must have five fields .* it has 4/],
    [{ cron: "0 9 * * *", tz: "Mars/Olympus_Mons" }, /"Mars\/Olympus_Mons" is not a time zone xclaw knows/],
    [{ cron: "*/2 * * * *", tz: "UTC" }, /runs every 2 minutes at times; the shortest interval allowed is 5 minutes/],
    [{ cron: "0,3 9 * * *", tz: "Europe/Berlin" }, /runs every 3 minutes at times/],
    [{ cron: "* * * * *", tz: "UTC" }, /runs every 1 minute/],
    [{ cron: "0 0 31 2 *", tz: "UTC" }, /never runs/],
    [{ cron: "61 * * * *", tz: "UTC" }, /is not valid/],
    [{ cron: "0 9 ? * *", tz: "UTC" }, /"\?" is not supported/],
    [{ everyMinutes: 4 }, /Every 4 minutes is too often; the shortest interval allowed is 5 minutes/],
    [{ at: "2026-02-28T12:00:00Z" }, /is in the past/],
    [{ at: "2028-01-01T00:00:00Z" }, /at most a year ahead/],
  ] as [TScheduleInput, RegExp][])("refuses %j", (input, message) => {
    expect(refusal(input)).toMatch(message);
  });

  it.each([
    [{ cron: "*/5 * * * *", tz: "UTC" }],
    [{ cron: "0 9 * * MON-FRI", tz: "America/New_York" }],
    [{ cron: "30 2 * * *", tz: "Europe/Berlin" }],
    [{ cron: "  15   3 1 * *  ", tz: "Asia/Shanghai" }],
    [{ everyMinutes: 5 }],
    [{ everyMinutes: 1440 }],
    [{ at: "2026-03-01T14:07:30+01:00" }],
  ] as [TScheduleInput][])("accepts %j", (input) => {
    expect(() => parseSchedule(input, MIN)).not.toThrow();
  });

  it("stores cron with single spaces and rounds a one-time job up to the minute", () => {
    expect(parseSchedule({ cron: "  15   3 1 * *  ", tz: "Asia/Shanghai" }, MIN)).toEqual({ kind: "CRON", cron: "15 3 1 * *", timezone: "Asia/Shanghai" });
    expect(parseSchedule({ at: "2026-03-01T13:07:30Z" }, MIN)).toEqual({ kind: "AT", runAt: new Date("2026-03-01T13:08:00Z") });
  });

  it("honours a different minimum interval", () => {
    expect(() => parseSchedule({ cron: "*/2 * * * *", tz: "UTC" }, { minIntervalMinutes: 1, now: NOW })).not.toThrow();
    expect(() => parseSchedule({ everyMinutes: 30 }, { minIntervalMinutes: 60, now: NOW })).toThrow(/shortest interval allowed is 60 minutes/);
  });
});

describe("next runs", () => {
  it("counts 'every N minutes' from the minute after it was set", () => {
    const schedule = parseSchedule({ everyMinutes: 15 }, { minIntervalMinutes: 5, now: new Date("2026-03-01T12:00:20Z") });
    expect(upcomingRuns(schedule, 3, new Date("2026-03-01T12:00:20Z")).map((date) => date.toISOString())).toEqual([
      "2026-03-01T12:16:00.000Z",
      "2026-03-01T12:31:00.000Z",
      "2026-03-01T12:46:00.000Z",
    ]);
  });

  it("runs a one-time job once", () => {
    const schedule = parseSchedule({ at: "2026-03-02T08:00:00Z" }, MIN);
    expect(nextRunAfter(schedule, NOW)?.toISOString()).toBe("2026-03-02T08:00:00.000Z");
    expect(nextRunAfter(schedule, new Date("2026-03-02T08:00:00Z"))).toBeNull();
  });

  it("runs a 02:30 job exactly once on a spring-forward day, at the first moment after the gap (Europe/Berlin, 29 March 2026)", () => {
    const schedule = parseSchedule({ cron: "30 2 * * *", tz: "Europe/Berlin" }, MIN);
    const runs = upcomingRuns(schedule, 3, new Date("2026-03-28T12:00:00Z")).map((date) => date.toISOString());
    // 28 March 02:30 CET has passed; 29 March has no 02:30 (02:00 → 03:00 CEST): once at 03:00 CEST; then 02:30 CEST.
    expect(runs).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z", "2026-03-31T00:30:00.000Z"]);
    expect(runs.filter((run) => run.startsWith("2026-03-29"))).toHaveLength(1);
  });

  it("runs a 02:30 job exactly once on a fall-back day, at its first occurrence (Europe/Berlin, 25 October 2026)", () => {
    const schedule = parseSchedule({ cron: "30 2 * * *", tz: "Europe/Berlin" }, { minIntervalMinutes: 5, now: new Date("2026-10-20T00:00:00Z") });
    const runs = upcomingRuns(schedule, 3, new Date("2026-10-24T12:00:00Z")).map((date) => date.toISOString());
    // 02:30 happens twice (00:30 UTC in CEST, 01:30 UTC in CET): only the first runs.
    expect(runs).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z", "2026-10-27T01:30:00.000Z"]);
    // Asking again from just after the first 02:30 (what the scheduler does after running it) skips the repeat.
    expect(nextRunAfter(schedule, new Date("2026-10-25T00:30:00Z"))?.toISOString()).toBe("2026-10-26T01:30:00.000Z");
    expect(nextRunAfter(schedule, new Date("2026-10-25T01:00:00Z"))?.toISOString()).toBe("2026-10-26T01:30:00.000Z");
  });

  it("keeps real 30-minute gaps through the repeated hour for */30", () => {
    const schedule = parseSchedule({ cron: "*/30 * * * *", tz: "Europe/Berlin" }, { minIntervalMinutes: 5, now: new Date("2026-10-20T00:00:00Z") });
    const runs = upcomingRuns(schedule, 5, new Date("2026-10-24T23:45:00Z"));
    const gaps = runs.slice(1).map((run, index) => (run.getTime() - runs[index]!.getTime()) / 60_000);
    expect(gaps).toEqual([30, 30, 30, 30]);
  });
});

describe("the slot to run after downtime", () => {
  it("is the latest due slot, with the missed ones counted (cron)", () => {
    const schedule = parseSchedule({ cron: "*/15 * * * *", tz: "UTC" }, MIN);
    const due = new Date("2026-03-01T09:00:00Z");
    expect(latestDueSlot(schedule, due, new Date("2026-03-01T10:07:00Z"))).toEqual({ slot: new Date("2026-03-01T10:00:00Z"), missed: 4, missedMore: false });
    expect(latestDueSlot(schedule, due, new Date("2026-03-01T09:00:10Z"))).toEqual({ slot: due, missed: 0, missedMore: false });
  });

  it("is the latest due slot, with the missed ones counted (every N minutes)", () => {
    const schedule = parseSchedule({ everyMinutes: 10 }, { minIntervalMinutes: 5, now: new Date("2026-03-01T11:59:30Z") });
    const due = new Date("2026-03-01T12:10:00Z");
    expect(latestDueSlot(schedule, due, new Date("2026-03-01T13:05:00Z"))).toEqual({ slot: new Date("2026-03-01T13:00:00Z"), missed: 5, missedMore: false });
  });
});

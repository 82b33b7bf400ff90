import { Cron } from "croner";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { TChronosSchedule } from "@/lib/wire/chronos";

/**
 * Schedules of scheduled jobs: a five-field cron expression in an IANA time zone, "every N
 * minutes", or one time ("at"). Cron times are computed by croner (already the jobs layer's cron
 * library), which handles daylight saving time: a time that does not exist on a spring-forward
 * day runs once at the first moment after the gap, and a time that occurs twice on a fall-back day
 * runs once, at its first occurrence.
 *
 * Everything a schedule could do wrong is refused here with a sentence that says why: a seconds
 * field, @-shortcuts such as @reboot, a step of zero, an unknown time zone, a pattern that never
 * runs, and anything that would run more often than `chronos.minIntervalMinutes`.
 */
export const ZSchedule = z.union(
  [
    z.strictObject({
      cron: z.string().trim().min(1, "Enter a cron expression.").max(200, "The cron expression is longer than 200 characters."),
      tz: z.string().trim().min(1, "Choose a time zone.").max(64, "The time zone name is longer than 64 characters."),
    }),
    z.strictObject({ everyMinutes: z.int("everyMinutes must be a whole number of minutes.").min(1, "everyMinutes must be at least 1.").max(44_640, "everyMinutes can be at most 44640 (31 days).") }),
    z.strictObject({ at: z.iso.datetime({ offset: true, message: "at must be a date and time such as 2026-12-24T18:00:00Z." }) }),
  ],
  { error: "schedule must be {cron, tz}, {everyMinutes} or {at}." },
);

export type TScheduleInput = z.infer<typeof ZSchedule>;

/** A schedule as it is stored on the job row. */
export type TStoredSchedule =
  | { kind: "CRON"; cron: string; timezone: string }
  | { kind: "EVERY"; everyMinutes: number; anchorAt: Date }
  | { kind: "AT"; runAt: Date };

/** How far ahead the interval check looks for the two closest runs of a cron pattern. */
const INTERVAL_CHECK_RUNS = 600;
const INTERVAL_CHECK_DAYS = 400;
/** Slots between a missed run and now that are counted one by one before "more than". */
const MISSED_COUNT_LIMIT = 1_000;

export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function invalid(message: string): never {
  throw new AppError("bad_request", message);
}

function minutesText(minutes: number): string {
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

function durationText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return minutesText(minutes);
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

function cronOf(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, mode: "5-part", paused: true });
}

/** The shape rules croner does not enforce itself (it accepts a seconds field and @-words). */
function checkCronShape(expression: string): void {
  const text = expression.trim();
  if (text.startsWith("@")) {
    if (/^@reboot$/i.test(text)) invalid("@reboot is not a schedule: xclaw jobs run at times, not when the server starts. Write five fields, e.g. \"0 3 * * *\".");
    invalid(`"${text}" is a shortcut; write the five fields instead (e.g. "0 * * * *" for hourly, "0 0 * * *" for daily).`);
  }
  const fields = text.split(/\s+/);
  if (fields.length === 6 || fields.length === 7) {
    invalid(`The cron expression has ${fields.length} fields; seconds${fields.length === 7 ? " and years" : ""} are not supported. Use five: minute hour day-of-month month day-of-week.`);
  }
  if (fields.length !== 5) invalid(`The cron expression must have five fields (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *"; it has ${fields.length}.`);
  const zeroStep = fields.find((field) => /\/0+(?!\d)/.test(field));
  if (zeroStep) invalid(`"${zeroStep}" has a step of 0, which never advances. Use a step of at least 1, e.g. */15.`);
  const question = fields.find((field) => field.includes("?"));
  if (question) invalid(`"?" is not supported in "${question}"; use * instead.`);
}

/** The closest two runs of a cron pattern within the next year or so, in milliseconds. */
export function shortestCronInterval(expression: string, timezone: string, from = new Date()): number | undefined {
  const cron = cronOf(expression, timezone);
  const horizon = from.getTime() + INTERVAL_CHECK_DAYS * 86_400_000;
  let previous = cron.nextRun(from);
  let shortest: number | undefined;
  for (let index = 0; previous && index < INTERVAL_CHECK_RUNS; index++) {
    const next = cron.nextRun(previous);
    if (!next || next.getTime() > horizon) break;
    const gap = next.getTime() - previous.getTime();
    if (shortest === undefined || gap < shortest) shortest = gap;
    previous = next;
  }
  return shortest;
}

/**
 * Checks a schedule and returns what to store. `now` is when it is set: an "at" must be in the
 * future, and "every N minutes" counts from the minute after it.
 */
export function parseSchedule(input: TScheduleInput, options: { minIntervalMinutes: number; now?: Date }): TStoredSchedule {
  const now = options.now ?? new Date();
  const minimumMs = options.minIntervalMinutes * 60_000;
  if ("cron" in input) {
    checkCronShape(input.cron);
    if (!isKnownTimeZone(input.tz)) invalid(`"${input.tz}" is not a time zone xclaw knows. Use an IANA name such as Europe/Berlin, America/New_York or UTC.`);
    let next: Date | null;
    try {
      next = cronOf(input.cron, input.tz).nextRun(now);
    } catch (error) {
      const reason = (error as Error).message.replace(/^CronPattern:\s*/, "");
      invalid(`The cron expression "${input.cron}" is not valid: ${reason}.`);
    }
    if (!next) invalid(`The cron expression "${input.cron}" never runs (no such date, e.g. 31 February).`);
    const shortest = shortestCronInterval(input.cron, input.tz, now);
    if (shortest !== undefined && shortest < minimumMs) {
      invalid(`"${input.cron}" runs every ${durationText(shortest)} at times; the shortest interval allowed is ${minutesText(options.minIntervalMinutes)} (chronos.minIntervalMinutes).`);
    }
    return { kind: "CRON", cron: input.cron.trim().split(/\s+/).join(" "), timezone: input.tz };
  }
  if ("everyMinutes" in input) {
    if (input.everyMinutes < options.minIntervalMinutes) {
      invalid(`Every ${minutesText(input.everyMinutes)} is too often; the shortest interval allowed is ${minutesText(options.minIntervalMinutes)} (chronos.minIntervalMinutes).`);
    }
    return { kind: "EVERY", everyMinutes: input.everyMinutes, anchorAt: new Date(Math.ceil(now.getTime() / 60_000) * 60_000) };
  }
  const at = new Date(input.at);
  if (at.getTime() <= now.getTime()) invalid(`${at.toISOString()} is in the past; choose a time in the future.`);
  if (at.getTime() > now.getTime() + 366 * 86_400_000) invalid("A one-time job can be at most a year ahead.");
  // Minute precision, like the other schedules (the scheduler looks once a minute).
  return { kind: "AT", runAt: new Date(Math.ceil(at.getTime() / 60_000) * 60_000) };
}

/** The first run strictly after `after`, or null (a one-time job that has passed). */
export function nextRunAfter(schedule: TStoredSchedule, after: Date): Date | null {
  switch (schedule.kind) {
    case "CRON":
      return cronOf(schedule.cron, schedule.timezone).nextRun(after);
    case "EVERY": {
      const period = schedule.everyMinutes * 60_000;
      const elapsed = after.getTime() - schedule.anchorAt.getTime();
      const index = Math.max(1, Math.floor(elapsed / period) + 1);
      return new Date(schedule.anchorAt.getTime() + index * period);
    }
    case "AT":
      return schedule.runAt.getTime() > after.getTime() ? schedule.runAt : null;
  }
}

/** The next `count` runs after `from` (the schedule preview). */
export function upcomingRuns(schedule: TStoredSchedule, count: number, from = new Date()): Date[] {
  const runs: Date[] = [];
  let cursor: Date | null = from;
  while (runs.length < count && cursor) {
    cursor = nextRunAfter(schedule, cursor);
    if (cursor) runs.push(cursor);
  }
  return runs;
}

/**
 * The slot to run when the scheduler finds a job due: the latest slot at or before `now` (so after
 * downtime at most one missed run is made up), and how many earlier slots were passed over.
 */
export function latestDueSlot(schedule: TStoredSchedule, due: Date, now: Date): { slot: Date; missed: number; missedMore: boolean } {
  if (schedule.kind === "AT") return { slot: due, missed: 0, missedMore: false };
  if (schedule.kind === "EVERY") {
    const period = schedule.everyMinutes * 60_000;
    const index = Math.floor((now.getTime() - schedule.anchorAt.getTime()) / period);
    const latest = new Date(schedule.anchorAt.getTime() + index * period);
    const slot = latest.getTime() >= due.getTime() ? latest : due;
    const missed = Math.round((slot.getTime() - due.getTime()) / period);
    return { slot, missed, missedMore: false };
  }
  const cron = cronOf(schedule.cron, schedule.timezone);
  const latest = cron.previousRuns(1, new Date(now.getTime() + 1))[0];
  const slot = latest && latest.getTime() >= due.getTime() ? latest : due;
  let missed = 0;
  let cursor: Date | null = due;
  while (cursor && cursor.getTime() < slot.getTime() && missed < MISSED_COUNT_LIMIT) {
    missed++;
    cursor = cron.nextRun(cursor);
  }
  return { slot, missed, missedMore: missed >= MISSED_COUNT_LIMIT };
}

export function toScheduleInput(schedule: TStoredSchedule): TChronosSchedule {
  switch (schedule.kind) {
    case "CRON":
      return { cron: schedule.cron, tz: schedule.timezone };
    case "EVERY":
      return { everyMinutes: schedule.everyMinutes };
    case "AT":
      return { at: schedule.runAt.toISOString() };
  }
}

export function describeSchedule(schedule: TStoredSchedule): string {
  switch (schedule.kind) {
    case "CRON":
      return `cron ${schedule.cron} (${schedule.timezone})`;
    case "EVERY":
      return schedule.everyMinutes % 60 === 0 && schedule.everyMinutes >= 120
        ? `every ${schedule.everyMinutes / 60} hours`
        : `every ${minutesText(schedule.everyMinutes)}`;
    case "AT":
      return `once at ${schedule.runAt.toISOString().replace("T", " ").slice(0, 16)} UTC`;
  }
}

/** The stored schedule of a job row. */
export function storedScheduleOf(row: { scheduleKind: "CRON" | "EVERY" | "AT"; cron: string | null; timezone: string | null; everyMinutes: number | null; anchorAt: Date | null; runAt: Date | null; createdAt: Date }): TStoredSchedule {
  switch (row.scheduleKind) {
    case "CRON":
      return { kind: "CRON", cron: row.cron ?? "", timezone: row.timezone ?? "UTC" };
    case "EVERY":
      return { kind: "EVERY", everyMinutes: row.everyMinutes ?? 60, anchorAt: row.anchorAt ?? row.createdAt };
    case "AT":
      return { kind: "AT", runAt: row.runAt ?? row.createdAt };
  }
}

/**
 * Wall-clock time in IANA zones on `Intl.DateTimeFormat` alone (no date library): the scheduler's cron search,
 * the job tools' validation and the "today is …" line of a job's prompt all go through here. Pure, no I/O.
 */

/** A local date and time to the minute; `month` is 1-12. */
export type WallTime = { year: number; month: number; day: number; hour: number; minute: number };

/** A local wall clock reading; `weekday` is 0 = Sunday … 6 = Saturday, as in cron. */
export type WallClock = WallTime & { weekday: number };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const SHORT_WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

// Building a DateTimeFormat costs far more than using one, and the scheduler asks about the same few zones
// thousands of times; the map is bounded by the number of distinct valid zones (invalid ones throw first).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // en-US + h23 gives plain ASCII digits and 0-23 hours on every engine (hour12: false can yield "24").
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

type Reading = WallClock & { second: number };

function read(instantMs: number, timeZone: string): Reading {
  const reading: Reading = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, weekday: 0 };
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    switch (part.type) {
      case "weekday":
        reading.weekday = SHORT_WEEKDAYS.indexOf(part.value);
        break;
      case "year":
      case "month":
      case "day":
      case "hour":
      case "minute":
      case "second":
        reading[part.type] = Number(part.value);
        break;
    }
  }
  return reading;
}

/** The zone's UTC offset in ms at an instant (wall clock minus UTC); historic offsets may carry seconds. */
function offsetAt(instantMs: number, timeZone: string): number {
  const r = read(instantMs, timeZone);
  return Date.UTC(r.year, r.month - 1, r.day, r.hour, r.minute, r.second) - Math.floor(instantMs / 1000) * 1000;
}

/** The zone's canonical name ("europe/berlin" → "Europe/Berlin"), or null when Intl does not know it. */
export function canonicalTimeZone(timeZone: string): string | null {
  if (typeof timeZone !== "string" || timeZone.trim() === "") return null;
  try {
    return formatterFor(timeZone).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export function isValidTimeZone(timeZone: string): boolean {
  return canonicalTimeZone(timeZone) !== null;
}

/** The wall clock in `timeZone` at an instant. Throws RangeError for an unknown zone. */
export function wallClock(instantMs: number, timeZone: string): WallClock {
  const { year, month, day, hour, minute, weekday } = read(instantMs, timeZone);
  return { year, month, day, hour, minute, weekday };
}

/**
 * The instant (ms) at which the clock in `timeZone` reads `wall`. Fields roll over like `Date.UTC`.
 *
 * - Gap (spring-forward, the time does not exist): the first valid instant after the gap — 02:30 on
 *   2026-03-08 in America/New_York gives 03:00 EDT. A job due in the gap still runs that day, as soon as it can.
 * - Overlap (fall-back, the time exists twice): the EARLIER instant — 01:30 on 2026-11-01 in America/New_York
 *   gives 01:30 EDT, not 01:30 EST. The second reading is a repeat, not a new time.
 */
export function instantOf(wall: WallTime, timeZone: string): number {
  return instantOfNaive(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute), timeZone);
}

/**
 * `instantOf` for a wall time given as "naive" ms (the wall fields read as if UTC) — the form the cron search
 * works in, since plain UTC arithmetic on it never meets a transition.
 */
export function instantOfNaive(naiveMs: number, timeZone: string): number {
  // Offsets a day either side bracket any transition near this wall time (zones change at most once a day).
  const before = offsetAt(naiveMs - DAY_MS, timeZone);
  const after = offsetAt(naiveMs + DAY_MS, timeZone);
  const isReading = (instant: number) => instant + offsetAt(instant, timeZone) === naiveMs;
  // The larger offset gives the earlier instant, so try it first: in an overlap both candidates read true.
  const [first, second] = before >= after ? [before, after] : [after, before];
  if (isReading(naiveMs - first)) return naiveMs - first;
  if (second !== first && isReading(naiveMs - second)) return naiveMs - second;
  // A gap: instants up to the transition read earlier than `naiveMs`, those from it read later.
  // Binary search on whole minutes for the first instant that reads past `naiveMs`.
  let lo = Math.floor((naiveMs - first) / MINUTE_MS); // reads before the gap
  let hi = Math.ceil((naiveMs - second) / MINUTE_MS); // reads after it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (mid * MINUTE_MS + offsetAt(mid * MINUTE_MS, timeZone) > naiveMs) hi = mid;
    else lo = mid;
  }
  return hi * MINUTE_MS;
}

/** The wall clock at an instant as naive ms (its fields read as UTC), floored to the minute. */
export function naiveOf(instantMs: number, timeZone: string): number {
  const r = read(instantMs, timeZone);
  return Date.UTC(r.year, r.month - 1, r.day, r.hour, r.minute);
}

/** An instant as local ISO 8601 with its offset in `timeZone`: "2026-12-24T08:00:00+01:00". */
export function formatLocalIso(instantMs: number, timeZone: string): string {
  const r = read(instantMs, timeZone);
  const offsetMinutes = Math.round(offsetAt(instantMs, timeZone) / MINUTE_MS);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return (
    `${r.year}-${pad(r.month)}-${pad(r.day)}T${pad(r.hour)}:${pad(r.minute)}:${pad(r.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** The current date in the job's zone for prompts: "Tuesday, 1 December 2026 (Europe/Berlin)". */
export function todayIn(instantMs: number, timeZone: string): string {
  const { year, month, day, weekday } = read(instantMs, timeZone);
  return `${WEEKDAY_NAMES[weekday]}, ${day} ${MONTH_NAMES[month - 1]} ${year} (${timeZone})`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * Schedule math for jobs, pure and without I/O: the job tools validate with `parseSchedule` when a job is created,
 * the scheduler asks `nextRunAt` when it is next due. Error texts are read by the model, so each one says what to
 * write instead.
 */
import { type Cron, parseCronExpression } from "cron-schedule";
import { suggestForText } from "./_schedule-hints.ts";
import { canonicalTimeZone, formatLocalIso, instantOf, instantOfNaive, naiveOf } from "./zoned-time.ts";

export type Schedule =
  | { kind: "interval"; expr: string; everyMs: number }
  | { kind: "once"; expr: string; at: number }
  | { kind: "cron"; expr: string; timeZone: string; cron: Cron };

export type ParsedSchedule = { ok: true; schedule: Schedule } | { ok: false; error: string };

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const UNIT_MS = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS } as const;
// One Gregorian cycle: after 400 years (146097 days, a whole number of weeks) dates and weekdays repeat, so a
// day/month/weekday combination that can ever match does so within it.
const SEARCH_HORIZON_MS = 146_097 * DAY_MS;

export const SCHEDULE_FORMS =
  'use "every N minutes|hours|days" (e.g. "every 30 minutes"), a one-time ISO 8601 instant with a UTC offset ' +
  '(e.g. "2026-12-24T08:00:00+01:00"), or a 5-field cron expression "minute hour day-of-month month weekday" ' +
  'in the job\'s timezone (e.g. "0 8 * * 1-5")';

/**
 * Parses a job's schedule. Forms: `every N minutes|hours|days`, an ISO 8601 instant with offset (runs once),
 * or 5-field cron evaluated in `timeZone` (the zone is validated for every form: it belongs to the job).
 *
 * @example parseSchedule("30 9 * * 1-5", "Europe/Berlin") // weekdays at 09:30 Berlin time
 */
export function parseSchedule(expr: string, timeZone: string): ParsedSchedule {
  const zone = canonicalTimeZone(timeZone);
  if (zone === null) {
    return { ok: false, error: `unknown time zone "${timeZone}"; use an IANA name such as Europe/Berlin` };
  }
  const text = expr.trim().replace(/\s+/g, " ");
  if (text === "") return invalid(expr, `it is empty; ${SCHEDULE_FORMS}`);
  if (/^every\b/i.test(text)) {
    const interval = parseInterval(text);
    if (interval !== null) return interval;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return parseOnce(text, zone);
  const tokens = text.split(" ");
  const zoneInside = tokens.length > 1 ? canonicalTimeZone(tokens.at(-1)!) : null;
  if (zoneInside !== null && /[a-z]/i.test(tokens.at(-1)!)) {
    return invalid(
      text,
      `the time zone is not part of the schedule; write "${tokens.slice(0, -1).join(" ")}" and set the job's timezone to ${zoneInside}`,
    );
  }
  if (text.startsWith("@") || looksLikeCron(tokens)) return parseCron(text, zone);
  const suggestion = suggestForText(text);
  return invalid(text, suggestion ?? `free-form text is not a schedule; ${SCHEDULE_FORMS}`);
}

/** The next due instant strictly after `afterMs`, or null when there is none (a past once, an impossible cron). */
export function nextRunAt(schedule: Schedule, afterMs: number): number | null {
  switch (schedule.kind) {
    case "interval":
      // Counted from the last run, not aligned to the wall clock: "every 2 hours" means two hours after the last.
      return afterMs + schedule.everyMs;
    case "once":
      return schedule.at > afterMs ? schedule.at : null;
    case "cron":
      return nextCronRun(schedule.cron, schedule.timeZone, afterMs);
  }
}

/** Short text for listings: "every 15 minutes", "once at 2026-12-24T07:00:00Z", "cron 0 8 * * * (Europe/Berlin)". */
export function describeSchedule(schedule: Schedule): string {
  switch (schedule.kind) {
    case "interval": {
      const unit = schedule.everyMs % DAY_MS === 0 ? "day" : schedule.everyMs % HOUR_MS === 0 ? "hour" : "minute";
      const n = schedule.everyMs / UNIT_MS[unit];
      return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
    }
    case "once":
      return `once at ${new Date(schedule.at).toISOString().replace(".000Z", "Z")}`;
    case "cron":
      return `cron ${schedule.expr} (${schedule.timeZone})`;
  }
}

function invalid(expr: string, reason: string): ParsedSchedule {
  return { ok: false, error: `Invalid schedule "${expr}": ${reason}` };
}

function parseInterval(text: string): ParsedSchedule | null {
  const match = /^every(?: (\d+))? (minute|hour|day)s?$/i.exec(text);
  if (match === null) return null;
  const n = match[1] === undefined ? 1 : Number(match[1]);
  const unit = match[2]!.toLowerCase() as keyof typeof UNIT_MS;
  if (n < 1) return invalid(text, `the interval must be at least 1 ${unit}, e.g. "every 1 ${unit}"`);
  const everyMs = n * UNIT_MS[unit];
  // Longer intervals are nearly always a mistake, and a cron or a once says a far-off time more plainly.
  if (everyMs > 366 * DAY_MS) {
    return invalid(
      text,
      "intervals longer than 366 days are not supported; use a cron expression or a one-time instant",
    );
  }
  return { ok: true, schedule: { kind: "interval", expr: text, everyMs } };
}

// Date, then optional time, then optional offset: the missing parts get their own sentences below.
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

function parseOnce(text: string, timeZone: string): ParsedSchedule {
  const example = "2026-12-24T08:00:00+01:00";
  const m = ISO_INSTANT.exec(text);
  if (m === null) return invalid(text, `it is not an ISO 8601 instant; write it like "${example}"`);
  const field = (i: number) => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [field(1), field(2), field(3), field(4), field(5), field(6)];
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > lastDay || hour > 23 || minute > 59 || second > 59) {
    return invalid(text, `it is not a valid date and time; write it like "${example}"`);
  }
  // Suggest the offset the job's zone really has on that date, so the model can copy it.
  const local = (h: number, mi: number) =>
    formatLocalIso(instantOf({ year, month, day, hour: h, minute: mi }, timeZone), timeZone);
  if (m[4] === undefined) {
    return invalid(text, `it has no time of day; add one with a UTC offset, e.g. "${local(9, 0)}" (${timeZone})`);
  }
  if (m[8] === undefined && m[9] === undefined) {
    return invalid(text, `it has no UTC offset; add one, e.g. "${local(hour, minute)}" (${timeZone} at that time)`);
  }
  const offsetMinutes = m[8] !== undefined ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0));
  if (Math.abs(offsetMinutes) > 18 * 60 || Number(m[11] ?? 0) > 59) {
    return invalid(text, "its UTC offset is out of range (-18:00 to +18:00)");
  }
  const millis = Number((m[7] ?? "").slice(0, 3).padEnd(3, "0"));
  const at = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * MINUTE_MS;
  return { ok: true, schedule: { kind: "once", expr: text, at } };
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

// `names[i]` stands for the value `min + i`.
type CronField = { name: string; min: number; max: number; values: string; names?: readonly string[] };

const CRON_FIELDS: readonly CronField[] = [
  { name: "minute", min: 0, max: 59, values: "0-59" },
  { name: "hour", min: 0, max: 23, values: "0-23" },
  { name: "day-of-month", min: 1, max: 31, values: "1-31" },
  { name: "month", min: 1, max: 12, values: "1-12 or JAN-DEC", names: MONTH_NAMES },
  { name: "weekday", min: 0, max: 7, values: "0-7 or SUN-SAT, 0 and 7 both Sunday", names: DAY_NAMES },
];

// The classic nicknames, expanded by us so they get the same field checks and meaning as written-out fields.
const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const CRON_TOKEN =
  /^(?:[0-9*?,/#-]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat|l|w)+$/i;

// Cron-shaped: starts like a minute field and is made of cron tokens, or has five fields that are mostly cron
// ("0 8 * * MOX" is a cron with a bad weekday, not English).
function looksLikeCron(tokens: readonly string[]): boolean {
  if (tokens.length < 2 || tokens.length > 7 || !/^[0-9*?]/.test(tokens[0]!)) return false;
  const cronish = tokens.filter((t) => CRON_TOKEN.test(t)).length;
  return cronish === tokens.length || (tokens.length === 5 && cronish >= 3);
}

function parseCron(text: string, timeZone: string): ParsedSchedule {
  let fieldsText = text;
  if (text.startsWith("@")) {
    const expanded = NICKNAMES[text.toLowerCase()];
    if (expanded === undefined) {
      return invalid(
        text,
        'unknown cron nickname; use @hourly, @daily, @weekly, @monthly or @yearly, or the 5 fields "minute hour day-of-month month weekday"',
      );
    }
    fieldsText = expanded;
  }
  const fields = fieldsText.split(" ");
  if (fields.length === 6) {
    return invalid(
      text,
      "it has 6 fields, but seconds are not supported (a job runs on whole minutes); use the 5 fields " +
        `"minute hour day-of-month month weekday", e.g. "${fields.slice(1).join(" ")}"`,
    );
  }
  if (fields.length !== 5) {
    return invalid(
      text,
      `a cron expression has 5 fields "minute hour day-of-month month weekday" but this has ${fields.length}; ` +
        'e.g. "0 8 * * 1-5" is 08:00 on weekdays',
    );
  }
  const normalised: string[] = [];
  for (const [i, field] of CRON_FIELDS.entries()) {
    const result = normaliseField(fields[i]!, field);
    if (typeof result !== "string") return invalid(text, result.error);
    normalised.push(result);
  }
  let cron: Cron;
  try {
    cron = parseCronExpression(normalised.join(" "));
  } catch (error) {
    // Not expected after the checks above; kept so a library quirk still surfaces as a readable refusal.
    return invalid(text, `${error instanceof Error ? error.message : String(error)}; ${SCHEDULE_FORMS}`);
  }
  return { ok: true, schedule: { kind: "cron", expr: text, timeZone, cron } };
}

const ELEMENT = /^(?:(\*)|([0-9a-z]+)(?:-([0-9a-z]+))?)(?:\/(\d+))?$/i;

/**
 * Checks one field so refusals can name it (cron-schedule's own errors do not), and rewrites it into the subset
 * cron-schedule reads as intended: names become numbers and `n/s` becomes `n-max/s` (it would read "5/15" as 5).
 */
function normaliseField(raw: string, field: CronField): string | { error: string } {
  const where = `cron ${field.name} field "${raw}"`;
  const isWeekday = field.name === "weekday";
  const out: string[] = [];
  for (const element of raw.split(",")) {
    const m = ELEMENT.exec(element);
    if (m === null) return { error: malformed(where, raw, field) };
    const [, star, firstText, lastText, stepText] = m;
    let step = "";
    if (stepText !== undefined) {
      const n = Number(stepText);
      const span = isWeekday ? 7 : field.max - field.min + 1;
      if (n < 1) return { error: `${where}: the step must be at least 1` };
      if (n > span) return { error: tooLargeStep(where, n, field) };
      step = `/${n}`;
    }
    if (star !== undefined) {
      out.push(`*${step}`);
      continue;
    }
    let first = fieldValue(firstText!, raw, field);
    if (typeof first !== "number") return first;
    if (lastText === undefined && step === "") {
      out.push(String(first));
      continue;
    }
    // Sunday may open a weekday range as 7 ("SUN-WED", "7-3"), as cron-schedule allows.
    if (isWeekday && first === 7 && lastText !== undefined && fieldValue(lastText, raw, field) !== 7) first = 0;
    // "n/s" runs from n to the top of the field; for weekdays that is Saturday, so "0/2" equals "*/2".
    let last =
      lastText === undefined ? (isWeekday ? (first === 7 ? 7 : 6) : field.max) : fieldValue(lastText, raw, field);
    if (typeof last !== "number") return last;
    // A weekday range may end on Sunday as 0 too ("FRI-SUN", "5-0").
    if (isWeekday && last === 0 && first > 0) last = 7;
    if (first > last) {
      const top = isWeekday ? 6 : field.max;
      const upper = first === top ? `${first}` : `${first}-${top}`;
      const lower = last === field.min ? `${last}` : `${field.min}-${last}`;
      return {
        error: `${where}: the range ${first}-${last} runs backwards; use a list instead, e.g. "${upper},${lower}"`,
      };
    }
    out.push(`${first}-${last}${step}`);
  }
  return out.join(",");
}

function fieldValue(token: string, raw: string, field: CronField): number | { error: string } {
  const where = `cron ${field.name} field "${raw}"`;
  if (/^\d+$/.test(token)) {
    const n = Number(token);
    if (n >= field.min && n <= field.max) return n;
    return {
      error:
        token === raw
          ? `${where} is out of range ${field.values}`
          : `${where}: ${token} is out of range ${field.values}`,
    };
  }
  const index = field.names?.indexOf(token.toLowerCase()) ?? -1;
  return index >= 0 ? field.min + index : { error: malformed(where, raw, field) };
}

function malformed(where: string, raw: string, field: CronField): string {
  if (raw.includes("?")) return `${where} is malformed: "?" is not supported, write "*"`;
  const forms = `use * or a value (${field.values}), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)`;
  const named = field.names?.some((name) => raw.toLowerCase().includes(name)) ?? false;
  if (/[lw#]/i.test(raw) && !named) return `${where} is malformed: "L", "W" and "#" are not supported; ${forms}`;
  return `${where} is malformed; ${forms}`;
}

function tooLargeStep(where: string, step: number, field: CronField): string {
  if (field.name === "minute")
    return `${where}: a step of ${step} does not fit in an hour; for a run every ${step} minutes use "every ${step} minutes"`;
  if (field.name === "hour")
    return `${where}: a step of ${step} does not fit in a day; for a run every ${step} hours use "every ${step} hours"`;
  return `${where}: the step ${step} is larger than the field's range ${field.values}`;
}

/** Lookup tables over a Cron's value sets; built once per Cron, since the scheduler asks about the same jobs. */
type Matcher = {
  nextMinute: Int8Array; // [m] = first allowed minute >= m, or -1; index 60 is -1
  nextHour: Int8Array; // [h] = first allowed hour >= h, or -1; index 24 is -1
  nextDay: Int8Array; // [d] = first allowed day-of-month >= d, or 32
  months: Uint8Array; // 0-based, as cron-schedule stores them
  weekdays: Uint8Array; // 0 = Sunday; cron-schedule has already folded 7 into 0
  possible: boolean; // some allowed month has an allowed day-of-month (Feb 29 counts)
};

const matchers = new WeakMap<Cron, Matcher>();

function matcherFor(cron: Cron): Matcher {
  let matcher = matchers.get(cron);
  if (matcher !== undefined) return matcher;
  const nextOf = (values: readonly number[], size: number, none: number) => {
    const table = new Int8Array(size + 1).fill(none);
    for (let i = size - 1; i >= 0; i--) table[i] = values.includes(i) ? i : table[i + 1]!;
    return table;
  };
  const months = new Uint8Array(12);
  for (const m of cron.months) months[m] = 1;
  const weekdays = new Uint8Array(7);
  for (const w of cron.weekdays) weekdays[w % 7] = 1;
  const longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  matcher = {
    nextMinute: nextOf(cron.minutes, 60, -1),
    nextHour: nextOf(cron.hours, 24, -1),
    nextDay: nextOf(cron.days, 32, 32),
    months,
    weekdays,
    possible: cron.months.some((m) => cron.days.some((d) => d <= longest[m]!)),
  };
  matchers.set(cron, matcher);
  return matcher;
}

/**
 * The first instant after `afterMs` whose wall clock in `timeZone` matches, searched in naive local time (wall
 * fields as UTC ms, where plain arithmetic never meets a transition) and mapped back with `instantOfNaive`:
 * - a wall time inside a spring-forward gap maps to the end of the gap, so it runs once, late, not never;
 *   several gap times all land on that one instant, which the strict "after" of the next call then skips;
 * - a wall time repeated by fall-back maps to its first occurrence; during the second one that instant is
 *   already past, so the search moves on and the time runs once.
 */
function nextCronRun(cron: Cron, timeZone: string, afterMs: number): number | null {
  const matcher = matcherFor(cron);
  if (!matcher.possible) return null;
  // Start at the next wall minute after afterMs's reading, not at the reading of the next real minute: across a
  // gap the latter jumps past the skipped times, which must still get their late run.
  let from = naiveOf(afterMs, timeZone) + MINUTE_MS;
  const until = from + SEARCH_HORIZON_MS;
  for (let attempt = 0; attempt < 10; attempt++) {
    const naive = nextNaiveMatch(matcher, from, until);
    if (naive === null) return null;
    const at = instantOfNaive(naive, timeZone);
    if (at > afterMs) return at;
    // Only inside a fall-back repeat: wall times up to its end had their (first) turn already. The earliest
    // instant of a wall time never decreases as the wall time grows, so binary-search the first wall minute
    // past afterMs (repeats last at most a few hours) instead of trying each matching minute.
    let lo = naive / MINUTE_MS;
    let hi = lo + 240;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (instantOfNaive(mid * MINUTE_MS, timeZone) > afterMs) hi = mid;
      else lo = mid;
    }
    from = hi * MINUTE_MS;
  }
  return null;
}

/**
 * The first naive minute >= `from` that matches, stepping by month and day while those do not match.
 * Day-of-month AND weekday must both match, the product's documented rule (a restricted "1-7" plus "1" is the
 * first Monday). Classic cron, and cron-schedule's own matcher, take either one when both are restricted, so
 * this search uses only cron-schedule's value sets, never its matcher.
 */
function nextNaiveMatch(m: Matcher, from: number, until: number): number | null {
  const start = new Date(from);
  let year = start.getUTCFullYear();
  let month = start.getUTCMonth();
  let day = start.getUTCDate();
  let hour = start.getUTCHours();
  let minute = start.getUTCMinutes();
  for (;;) {
    const dayStart = Date.UTC(year, month, day);
    if (dayStart > until) return null;
    if (!m.months[month] || day > new Date(Date.UTC(year, month + 1, 0)).getUTCDate()) {
      month += 1;
      if (month === 12) [month, year] = [0, year + 1];
      [day, hour, minute] = [1, 0, 0];
      continue;
    }
    const allowedDay = m.nextDay[day]!;
    if (allowedDay !== day) {
      [day, hour, minute] = [allowedDay, 0, 0];
      continue;
    }
    // 1970-01-01 was a Thursday.
    if (m.weekdays[(((Math.floor(dayStart / DAY_MS) + 4) % 7) + 7) % 7]) {
      const time = firstTimeFrom(m, hour, minute);
      if (time !== null) return dayStart + time;
    }
    [day, hour, minute] = [day + 1, 0, 0];
  }
}

function firstTimeFrom(m: Matcher, hour: number, minute: number): number | null {
  let h = m.nextHour[hour]!;
  if (h === hour) {
    const mi = m.nextMinute[minute]!;
    if (mi >= 0) return h * HOUR_MS + mi * MINUTE_MS;
    h = m.nextHour[hour + 1]!;
  }
  return h >= 0 ? h * HOUR_MS + m.nextMinute[0]! * MINUTE_MS : null;
}

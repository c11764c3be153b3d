/**
 * Suggestions for schedules written in English. Models often write "daily at 8am"; refusing with the exact
 * expression to use instead lets the next attempt succeed. Recognises common phrasings only; the caller falls
 * back to a sentence listing the accepted forms.
 */

const CRON_SHAPE = "(minute hour day-of-month month weekday) in the job's timezone";
const PREFIX = "free-form English is not a schedule";

const DAY_WORDS: readonly [RegExp, number][] = [
  [/\b(?:sundays?|sun)\b/, 0],
  [/\b(?:mondays?|mon)\b/, 1],
  [/\b(?:tuesdays?|tues?)\b/, 2],
  [/\b(?:wednesdays?|wed)\b/, 3],
  [/\b(?:thursdays?|thu(?:rs?)?)\b/, 4],
  [/\b(?:fridays?|fri)\b/, 5],
  [/\b(?:saturdays?|sat)\b/, 6],
];
const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4 };
const UNIT_WORDS: readonly [RegExp, "minute" | "hour" | "day" | "week" | "month" | "second"][] = [
  [/^(?:s|secs?|seconds?)$/, "second"],
  [/^(?:m|mins?|minutes?)$/, "minute"],
  [/^(?:h|hrs?|hours?)$/, "hour"],
  [/^(?:d|days?)$/, "day"],
  [/^(?:w|wks?|weeks?)$/, "week"],
  [/^(?:months?)$/, "month"],
];

/** The reason sentence for a refused English schedule with the equivalent to use, or null if not recognised. */
export function suggestForText(text: string): string | null {
  const s = text
    .toLowerCase()
    .replace(/[.!]+$/, "")
    .trim();
  // A date word makes it a one-off even when a time follows ("tomorrow at 9").
  return intervalHint(s) ?? onceHint(s) ?? calendarHint(s);
}

function cronHint(expr: string, note = ""): string {
  return `${PREFIX}; use the cron expression "${expr}" ${CRON_SHAPE}${note}`;
}

function intervalHint(s: string): string | null {
  if (/^(?:hourly|every hour on the hour)$/.test(s)) {
    return `${cronHint("0 * * * *")}, or "every hour" to count from the last run`;
  }
  const m = /^(?:every|each) (\d+|a|an|one|other|half(?: an)?)? ?([a-z]+)$/.exec(s);
  if (m === null) return null;
  const unit = UNIT_WORDS.find(([pattern]) => pattern.test(m[2]!))?.[1];
  if (unit === undefined) return null;
  const countWord = m[1] ?? "1";
  const n = /^\d+$/.test(countWord)
    ? Number(countWord)
    : countWord === "other"
      ? 2
      : countWord.startsWith("half")
        ? 0.5
        : 1;
  if (unit === "second") return `${PREFIX}; jobs run on whole minutes, the shortest interval is "every 1 minute"`;
  if (n === 0.5 && unit === "hour") return `${PREFIX}; use "every 30 minutes"`;
  if (!Number.isInteger(n) || n < 1) return null;
  if (unit === "week") {
    return `${PREFIX}; use "every ${n * 7} days", or for a fixed weekday and time a cron expression such as "0 9 * * 1" ${CRON_SHAPE}`;
  }
  if (unit === "month") return cronHint(n === 1 ? "0 9 1 * *" : `0 9 1 */${n} *`, "; 09:00 on the 1st assumed");
  return `${PREFIX}; use "every ${n} ${unit}${n === 1 ? "" : "s"}"`;
}

type Time = { hour: number; minute: number; given: boolean };

function timeIn(s: string, fallback: number): Time | null {
  if (/\bnoon\b|\bmidday\b/.test(s)) return { hour: 12, minute: 0, given: true };
  if (/\bmidnight\b/.test(s)) return { hour: 0, minute: 0, given: true };
  const meridiem = /\b(\d{1,2})(?::(\d{2}))? ?([ap])\.?m\b\.?/.exec(s);
  if (meridiem !== null) {
    const hour12 = Number(meridiem[1]);
    const minute = Number(meridiem[2] ?? 0);
    if (hour12 < 1 || hour12 > 12 || minute > 59) return null;
    return { hour: (hour12 % 12) + (meridiem[3] === "p" ? 12 : 0), minute, given: true };
  }
  const clock = /\bat (\d{1,2})(?::(\d{2}))?\b|\b(\d{1,2}):(\d{2})\b/.exec(s);
  if (clock !== null) {
    const hour = Number(clock[1] ?? clock[3]);
    const minute = Number(clock[2] ?? clock[4] ?? 0);
    return hour <= 23 && minute <= 59 ? { hour, minute, given: true } : null;
  }
  return { hour: fallback, minute: 0, given: false };
}

function calendarHint(s: string): string | null {
  let dom = "*";
  let dow = "*";
  let fallback: number | null = null;
  const monthDay = /\b(?:on )?the (\d{1,2})(?:st|nd|rd|th)?\b|\b(\d{1,2})(?:st|nd|rd|th)\b/.exec(s);
  const nth = /\b(first|second|third|fourth) (\w+) of (?:the|each|every) month\b/.exec(s);
  const days = DAY_WORDS.filter(([pattern]) => pattern.test(s)).map(([, n]) => n);
  if (
    /\b(?:week ?days?|work ?days?|working days?|business days?|mon(?:day)? ?(?:-|to|through|thru) ?fri(?:day)?)\b/.test(
      s,
    )
  ) {
    dow = "1-5";
  } else if (/\bweekends?\b/.test(s)) {
    dow = "0,6";
  } else if (days.length > 0) {
    dow = days.join(",");
  }
  if (nth !== null && days.length === 1) {
    // Day-of-month AND weekday both have to match here, so "1-7" with a weekday is that weekday's first time.
    const first = (ORDINALS[nth[1]!]! - 1) * 7 + 1;
    dom = `${first}-${first + 6}`;
  } else if (/\b(?:monthly|every month|each month|of (?:the|each|every) month)\b/.test(s)) {
    const n = Number(monthDay?.[1] ?? monthDay?.[2] ?? 1);
    if (n < 1 || n > 31) return null;
    dom = String(n);
  }
  if (/\bmornings?\b/.test(s)) fallback = 8;
  else if (/\bevenings?\b/.test(s)) fallback = 18;
  else if (/\b(?:nightly|nights?)\b/.test(s)) fallback = 0;
  const daily = /\b(?:daily|every ?day|each day|a day|per day|mornings?|evenings?|nightly|nights?)\b/.test(s);
  const time = timeIn(s, fallback ?? 9);
  if (time === null) return null;
  if (dom === "*" && dow === "*" && !daily && !time.given) return null;
  if (dom === "*" && dow === "*" && !daily && !/\bat\b|\b(?:every|each)\b/.test(s)) return null;
  const note = time.given || fallback !== null ? "" : "; 09:00 assumed, the first two fields are minute and hour";
  return cronHint(`${time.minute} ${time.hour} ${dom} * ${dow}`, note);
}

function onceHint(s: string): string | null {
  if (!/\b(?:today|tonight|tomorrow|next|in \d+|on \d|christmas)\b/.test(s)) return null;
  return `${PREFIX}; for a single run give the instant in ISO 8601 with its UTC offset, e.g. "2026-12-24T08:00:00+01:00"`;
}

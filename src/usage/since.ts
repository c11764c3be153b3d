import { defineError } from "../error.ts";
import { instantOfNaive, naiveOf } from "../jobs/zoned-time.ts";

/** A `--since` the CLI cannot read: a usage error (exit 2) naming the forms it takes. */
export const BadSince = defineError<{ command: string }>("usage");

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * `--since`: a span back from now (`24h`, `7d`, `30d`: any whole number of hours or days) or a calendar day
 * `YYYY-MM-DD`, from its midnight in the owner's zone. Epoch ms.
 */
export function parseSince(text: string, now: number, timezone: string): number {
  const span = /^(\d{1,5})([hd])$/.exec(text);
  if (span) return now - Number(span[1]) * (span[2] === "h" ? HOUR_MS : DAY_MS);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const naive = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    // Date.UTC rolls 2026-02-31 over into March: a day that does not exist is refused, not moved.
    if (new Date(naive).toISOString().slice(0, 10) === text) return instantOfNaive(naive, timezone);
  }
  throw BadSince(
    `usage: --since takes 24h, 7d, 30d (any number of hours or days) or a date YYYY-MM-DD, not "${text}"`,
    {
      command: "usage",
    },
  );
}

/** Today's first instant in `timezone` (`/usage`'s "today"). */
export function startOfToday(now: number, timezone: string): number {
  return instantOfNaive(Math.floor(naiveOf(now, timezone) / DAY_MS) * DAY_MS, timezone);
}

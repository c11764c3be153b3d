import { instantOf, wallClock } from "../jobs/zoned-time.ts";

/*
 * The periods a budget counts in: the owner's day and calendar month, cut at local midnight in their zone (a
 * 23- or 25-hour day at a DST change is still one day). Pure, no I/O.
 */

export type BudgetPeriod = "daily" | "monthly";

/** A period as the ledger is asked about it: from `start` (inclusive) to `end` (exclusive), epoch ms. */
export type PeriodWindow = { period: BudgetPeriod; start: number; end: number; label: string };

/** The day or month of `timeZone` that `now` falls in. Throws RangeError for an unknown zone. */
export function periodWindow(period: BudgetPeriod, now: number, timeZone: string): PeriodWindow {
  const { year, month, day } = wallClock(now, timeZone);
  // instantOf rolls fields over like Date.UTC (day 32 → the 1st of the next month) and gives the first valid
  // instant when local midnight falls in a DST gap.
  const midnight = (y: number, m: number, d: number) =>
    instantOf({ year: y, month: m, day: d, hour: 0, minute: 0 }, timeZone);
  if (period === "daily") {
    return {
      period,
      start: midnight(year, month, day),
      end: midnight(year, month, day + 1),
      label: isoDay(year, month, day),
    };
  }
  return { period, start: midnight(year, month, 1), end: midnight(year, month + 1, 1), label: `${year}-${pad(month)}` };
}

function isoDay(year: number, month: number, day: number): string {
  return `${year}-${pad(month)}-${pad(day)}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

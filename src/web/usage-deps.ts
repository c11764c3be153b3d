import type { Config } from "../config/schema.ts";
import { naiveOf } from "../jobs/zoned-time.ts";
import { spendSince } from "../usage/budget.ts";
import { type BudgetPeriod, periodWindow } from "../usage/budget-period.ts";
import type { UsageLedger, UsageTotals } from "../usage/ledger-contract.ts";
import { ownerTimezone } from "../usage/owner-timezone.ts";

/** One provider's calls on one day (the owner's zone), as the Usage page charts and tabulates them. */
export type UsageDay = { day: string; provider: string } & UsageTotals;

/**
 * Spend so far in a budget's period, counted as the budget counts it: the priced calls' cost, with `unpriced` set
 * when some call had no known price (never a guess); the limit config.toml sets for it (absent: no budget).
 */
export type PeriodSpend = { totals: UsageTotals; spentUsd: number; unpriced: boolean; limitUsd?: number };

/** What the dashboard and the Usage page say about spend, in the owner's zone. */
export type UsageSpend = { timezone: string; today: PeriodSpend; month: PeriodSpend };

/** The Usage page and the dashboard's spend line, on the daemon's usage ledger. */
export type UsageWeb = {
  /** The last `days` days in the owner's zone, per provider, oldest first; `days` lists every day, empty or not. */
  daily(days: number): Promise<{ timezone: string; days: string[]; rows: UsageDay[] }>;
  /** Today's and this month's spend (the owner's zone) against `[fermix_core.budget]` daily_usd / monthly_usd. */
  spend(): Promise<UsageSpend>;
};

const DAY_MS = 86_400_000;

export function createUsageWeb(deps: {
  ledger: () => Promise<UsageLedger>;
  /** config.toml as it is now: a raised budget or a new zone shows on the next load, without a restart. */
  config: () => Promise<Config>;
  now: () => number;
}): UsageWeb {
  return {
    async daily(count) {
      const [ledger, config] = await Promise.all([deps.ledger(), deps.config()]);
      const timezone = ownerTimezone(config);
      const now = deps.now();
      return { timezone, days: lastDays(count, timezone, now), rows: ledger.dailyByProvider(count, timezone, now) };
    },
    async spend() {
      const [ledger, config] = await Promise.all([deps.ledger(), deps.config()]);
      const timezone = ownerTimezone(config);
      const { daily_usd, monthly_usd } = config.fermix_core?.budget ?? {};
      const now = deps.now();
      // The budget's own sum, so the page and the refusal never disagree on what was spent.
      const spent = (period: BudgetPeriod, limitUsd: number | undefined): PeriodSpend => ({
        ...spendSince(ledger, periodWindow(period, now, timezone).start),
        limitUsd,
      });
      return { timezone, today: spent("daily", daily_usd), month: spent("monthly", monthly_usd) };
    },
  };
}

/** The `count` days up to today in `timezone`, oldest first, as YYYY-MM-DD (naive arithmetic: no DST to meet). */
export function lastDays(count: number, timezone: string, now: number): string[] {
  const today = Math.floor(naiveOf(now, timezone) / DAY_MS) * DAY_MS;
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

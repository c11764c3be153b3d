import type { Config } from "../config/schema.ts";
import { isValidTimeZone, naiveOf } from "../jobs/zoned-time.ts";
import { type BudgetPeriod, periodWindow } from "../usage/budget-period.ts";
import type { UsageLedger, UsageTotals } from "../usage/ledger-contract.ts";

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

// The same default as the turn runner and the job service: an owner who never set a zone has New York's.
const DEFAULT_TIMEZONE = "America/New_York";
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
      const { daily_usd, monthly_usd } = budgetOf(config);
      const now = deps.now();
      const spent = (period: BudgetPeriod, limitUsd: number | undefined): PeriodSpend => {
        // By model: a model's price is known or not, so the priced rows add up to what the budget counts.
        const { rows, total } = ledger.summarize({ since: periodWindow(period, now, timezone).start, by: "model" });
        const spentUsd = rows.reduce((sum, row) => sum + (row.costUsd ?? 0), 0);
        return { totals: total, spentUsd, unpriced: rows.some((row) => row.costUsd === null), limitUsd };
      };
      return { timezone, today: spent("daily", daily_usd), month: spent("monthly", monthly_usd) };
    },
  };
}

/** The owner's zone from [fermix_core.personalization]; a zone Intl does not know falls back to the default. */
export function ownerTimezone(config: Config): string {
  const zone = config.fermix_core?.personalization?.timezone;
  return zone && isValidTimeZone(zone) ? zone : DEFAULT_TIMEZONE;
}

/**
 * `[fermix_core.budget]`, read defensively: the section's schema belongs to the budget code, and a page that shows
 * spend must not fail on a limit it cannot read — a value that is not a positive number counts as no limit.
 */
export function budgetOf(config: Config): { daily_usd?: number; monthly_usd?: number } {
  const section = (config.fermix_core as Record<string, unknown> | undefined)?.budget;
  if (!section || typeof section !== "object") return {};
  const limit = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
  const { daily_usd, monthly_usd } = section as Record<string, unknown>;
  return { daily_usd: limit(daily_usd), monthly_usd: limit(monthly_usd) };
}

/** The `count` days up to today in `timezone`, oldest first, as YYYY-MM-DD (naive arithmetic: no DST to meet). */
export function lastDays(count: number, timezone: string, now: number): string[] {
  const today = Math.floor(naiveOf(now, timezone) / DAY_MS) * DAY_MS;
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

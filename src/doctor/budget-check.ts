import { existsSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import { openSqlite } from "../runtime/sqlite.ts";
import { createBudget, NOTICE_AT } from "../usage/budget.ts";
import type { BudgetLine, BudgetStatus } from "../usage/budget-contract.ts";
import { inMemoryNotices } from "../usage/budget-notices.ts";
import { resetAt, usd } from "../usage/budget-sentence.ts";
import { createUsageLedger } from "../usage/ledger.ts";
import { type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

/**
 * Spend today and this month (the owner's zone) against [fermix_core.budget]: warn from 80 %, fail at 100 % (new
 * turns are refused then). Reads memory.db's ledger read-only; a home with no ledger yet has spent nothing.
 */
export const budgetCheck = defineCheck({
  id: "budget",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("budget", "budget")];
    const config = ctx.config;
    const status = withLedgerStatus(ctx.paths.db, config, ctx.now);
    return [budgetRow(status)];
  },
});

/** The row for a budget status: the fullest budget decides it. */
export function budgetRow(status: BudgetStatus): DoctorRow {
  const lines = [status.daily, status.monthly];
  const spent = `${usd(status.daily.spentUsd)} today, ${usd(status.monthly.spentUsd)} this month`;
  const unpriced = lines.some((l) => l.unpriced) ? " (some calls have no known price and count nothing)" : "";
  const set = lines.filter((l): l is BudgetLine & { limitUsd: number } => l.limitUsd !== undefined);
  if (!set.length) {
    return { id: "budget", title: "budget", status: "ok", detail: `no budget set; ${spent}${unpriced}` };
  }
  const parts = set.map(
    (l) => `${usd(l.spentUsd)} of ${usd(l.limitUsd)} ${l.period === "daily" ? "today" : "this month"}`,
  );
  const detail = `${parts.join(", ")}${unpriced}`;
  const fullest = set.reduce((a, b) => (b.spentUsd / b.limitUsd > a.spentUsd / a.limitUsd ? b : a));
  const share = fullest.spentUsd / fullest.limitUsd;
  if (share < NOTICE_AT) return { id: "budget", title: "budget", status: "ok", detail };
  const key = fullest.period === "daily" ? "daily_usd" : "monthly_usd";
  const fix = `raise [fermix_core.budget] ${key} in config.toml, or wait until ${resetAt(fullest.end, status.timezone)}`;
  const state = share >= 1 ? "fail" : "warn";
  const why = share >= 1 ? " — new turns are refused" : "";
  return { id: "budget", title: "budget", status: state, detail: `${detail}${why}`, fix };
}

function withLedgerStatus(dbPath: string, config: Config, now: () => number): BudgetStatus {
  const db = existsSync(dbPath) ? openSqlite(dbPath, { readonly: true }) : undefined;
  try {
    const hasLedger =
      db?.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'usage_ledger'").get() != null;
    const ledger = db && hasLedger ? createUsageLedger(db) : emptyLedger;
    return createBudget({ ledger: () => ledger, config: () => config, now, notices: inMemoryNotices() }).status();
  } finally {
    db?.close();
  }
}

const emptyTotals = {
  calls: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
};
const emptyLedger = { summarize: () => ({ rows: [], total: emptyTotals }) };

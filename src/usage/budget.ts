import type { Config } from "../config/schema.ts";
import { type Budget, BudgetExceeded, type BudgetLine, type BudgetStatus } from "./budget-contract.ts";
import type { NoticeMemory } from "./budget-notices.ts";
import { type BudgetPeriod, periodWindow } from "./budget-period.ts";
import { noticeSentence, refusalSentence, runRefusalSentence } from "./budget-sentence.ts";
import type { UsageLedger, UsageTotals } from "./ledger-contract.ts";
import { ownerTimezone } from "./owner-timezone.ts";

/** The share of a budget at which the owner is told, once per period. */
export const NOTICE_AT = 0.8;

export type BudgetDeps = {
  /** Only its sums are read (the meter writes the rows). */
  ledger: () => Pick<UsageLedger, "summarize">;
  /** config.toml as it is now: a raised limit applies to the next check, without a restart. */
  config: () => Config;
  now: () => number;
  notices: NoticeMemory;
};

/**
 * The owner's budgets over the usage ledger. Every check reads the ledger and the live config afresh: a call
 * from any turn — a channel's, a guest's, a job's, a sub-agent's — counts as soon as the ledger has it.
 */
export function createBudget(deps: BudgetDeps): Budget {
  const status = (): BudgetStatus => {
    const config = deps.config();
    const timezone = ownerTimezone(config);
    const limits = config.fermix_core?.budget ?? {};
    const now = deps.now();
    const line = (period: BudgetPeriod, limitUsd: number | undefined): BudgetLine => {
      const window = periodWindow(period, now, timezone);
      return { ...window, limitUsd, ...spentSince(deps.ledger(), window.start) };
    };
    return { timezone, daily: line("daily", limits.daily_usd), monthly: line("monthly", limits.monthly_usd) };
  };
  const limited = () => {
    const limits = deps.config().fermix_core?.budget;
    return limits?.daily_usd !== undefined || limits?.monthly_usd !== undefined;
  };
  return {
    status,
    guard(request) {
      // With no limit there is nothing to refuse: no period windows in the owner's zone (the first one loads ICU's
      // time zone data, megabytes an unlimited daemon never needs) and no sums of the ledger before every call.
      if (limited()) refuseOverLimit(status(), request);
      const run = request.run;
      if (!run) return;
      const rows = deps.ledger().summarize({ since: run.since, by: "job" }).rows;
      const spent = rows.find((r) => r.group === run.jobId)?.costUsd ?? 0;
      if (spent >= run.maxUsd) throw BudgetExceeded(runRefusalSentence(run, spent), { scope: "job_run" });
    },
    takeNotices() {
      if (!limited()) return [];
      const current = status();
      const due: string[] = [];
      for (const line of [current.daily, current.monthly]) {
        if (line.limitUsd === undefined) continue;
        const share = line.spentUsd / line.limitUsd;
        // Past 100 % the refusal says it all; the notice stays due for a raised limit that leaves it above 80 %.
        if (share < NOTICE_AT || share >= 1 || deps.notices.given(line.period, line.label)) continue;
        deps.notices.remember(line.period, line.label);
        due.push(noticeSentence({ ...line, limitUsd: line.limitUsd }, current.timezone));
      }
      return due;
    },
  };
}

function refuseOverLimit(current: BudgetStatus, request: Parameters<Budget["guard"]>[0]): void {
  for (const line of [current.daily, current.monthly]) {
    if (line.limitUsd !== undefined && line.spentUsd >= line.limitUsd) {
      const limited = { ...line, limitUsd: line.limitUsd };
      throw BudgetExceeded(refusalSentence(limited, request, current.timezone), { scope: line.period });
    }
  }
}

/**
 * Per model, so one unpriced model does not hide what the priced ones cost (the ledger's total is null when any
 * call has no price): the priced groups are summed, and `unpriced` says some calls could not be counted.
 */
/**
 * What was spent since `since`, as the budget counts it: summed per model, so one model with no known price leaves
 * the others' cost known (its calls count $0 and are flagged). The setup page's spend line reads the same figures.
 */
export function spendSince(
  ledger: Pick<UsageLedger, "summarize">,
  since: number,
): { totals: UsageTotals; spentUsd: number; unpriced: boolean } {
  const { rows, total } = ledger.summarize({ since, by: "model" });
  let spentUsd = 0;
  let unpriced = false;
  for (const row of rows) {
    if (row.costUsd === null) unpriced = true;
    else spentUsd += row.costUsd;
  }
  return { totals: total, spentUsd, unpriced };
}

function spentSince(ledger: Pick<UsageLedger, "summarize">, since: number): { spentUsd: number; unpriced: boolean } {
  const { spentUsd, unpriced } = spendSince(ledger, since);
  return { spentUsd, unpriced };
}

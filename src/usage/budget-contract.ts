/*
 * Budgets (issue 30): `[fermix_core.budget]` daily_usd / monthly_usd over the usage ledger, and a job's own max_usd
 * per run. The agent's turn asks the guard before every model call; this file is what it codes against.
 */
import type { Trust } from "../capabilities/caller.ts";
import { defineError } from "../error.ts";
import type { BudgetPeriod, PeriodWindow } from "./budget-period.ts";

/** A budget was reached: `fermix ask` exits 5, a channel replies with the sentence, a job's run is `budget`. */
export const BudgetExceeded = defineError<{ scope: BudgetPeriod | "job_run" }>("budget_exceeded");

/** One budget as it stands: its window in the owner's zone, the limit (absent: none set) and what was spent. */
export type BudgetLine = PeriodWindow & {
  limitUsd?: number;
  /** The priced calls' cost; a call with no known price counts nothing (never a guess), and sets `unpriced`. */
  spentUsd: number;
  unpriced: boolean;
};

export type BudgetStatus = { timezone: string; daily: BudgetLine; monthly: BudgetLine };

/** A scheduled run's own limit (schedule_job's max_usd): what the run spent since it started. */
export type RunLimit = { jobId: string; jobName: string; maxUsd: number; since: number };

export type GuardRequest = {
  /** A guest is refused without being told what the owner spends. */
  trust: Trust;
  /** False before the turn's first model call (the turn is refused); true between calls (it stops). */
  midTurn: boolean;
  run?: RunLimit;
};

export interface Budget {
  status(): BudgetStatus;
  /** Throws BudgetExceeded when a budget that applies has been reached; returns otherwise. */
  guard(request: GuardRequest): void;
  /** The 80 % notices not given yet in their period, each marked given as it is returned (one per period). */
  takeNotices(): string[];
}

import { wallClock } from "../jobs/zoned-time.ts";
import type { BudgetLine, GuardRequest, RunLimit } from "./budget-contract.ts";

/*
 * What the owner is told about a budget: a refusal names what was spent, the limit, when it resets and the key to
 * raise; the notice at 80 % the same figures. A guest learns only that the agent cannot answer now.
 */

export const GUEST_REFUSAL = "I can't take on more work right now: my usage budget is used up. Please try again later.";

const KEY: Record<BudgetLine["period"], string> = { daily: "daily_usd", monthly: "monthly_usd" };
const NAME: Record<BudgetLine["period"], string> = { daily: "daily", monthly: "monthly" };

export function refusalSentence(
  line: BudgetLine & { limitUsd: number },
  request: GuardRequest,
  timezone: string,
): string {
  if (request.trust !== "operator") return GUEST_REFUSAL;
  const what = request.midTurn
    ? "this turn stopped before its next model call"
    : "new turns are refused before any model request";
  return (
    `The ${NAME[line.period]} budget is used up: ${usd(line.spentUsd)} spent of ${usd(line.limitUsd)} ` +
    `${line.period === "daily" ? "today" : "this month"}, so ${what}. It resets at ${resetAt(line.end, timezone)}. ` +
    `To raise it, set [fermix_core.budget] ${KEY[line.period]} in config.toml (it applies at once).`
  );
}

export function runRefusalSentence(run: RunLimit, spentUsd: number): string {
  return (
    `The run of job "${run.jobName}" reached its own limit: ${usd(spentUsd)} spent of max_usd ${usd(run.maxUsd)} ` +
    `per run, so it stopped before its next model call. To raise it, update the job's max_usd (update_job).`
  );
}

export function noticeSentence(line: BudgetLine & { limitUsd: number }, timezone: string): string {
  const share = Math.floor((line.spentUsd / line.limitUsd) * 100);
  return (
    `fermix: ${share} % of the ${NAME[line.period]} budget is spent (${usd(line.spentUsd)} of ${usd(line.limitUsd)}` +
    ` ${line.period === "daily" ? "today" : "this month"}); at 100 % new turns are refused until ` +
    `${resetAt(line.end, timezone)}. [fermix_core.budget] ${KEY[line.period]} in config.toml sets it.`
  );
}

/** Dollars to the cent, and a tiny amount (a test's 0.000001 limit, a cheap model's first call) to two figures. */
export function usd(amount: number): string {
  if (amount === 0 || amount >= 0.01) return `$${amount.toFixed(2)}`;
  const decimals = Math.min(12, 1 - Math.floor(Math.log10(amount)));
  return `$${amount.toFixed(decimals)}`;
}

/** "2026-05-04 00:00 Europe/Berlin": the period's end on the owner's clock. */
export function resetAt(end: number, timezone: string): string {
  const w = wallClock(end, timezone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)} ${timezone}`;
}

import type { Config } from "../config/schema.ts";
import { lazy } from "../lazy.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { createBudget } from "./budget.ts";
import type { Budget } from "./budget-contract.ts";
import { createNoticeMemory } from "./budget-notices.ts";
import { createUsageLedger } from "./ledger.ts";

/**
 * The owner's budgets as the app checks them: the ledger in memory.db (opened at the first check), the live config,
 * and the notices given, kept beside it in FERMIX_HOME.
 */
export function appBudget(deps: {
  db: () => SqlDatabase;
  config: () => Config;
  now: () => number;
  paths: { budgetNotices: string };
}): Budget {
  const ledger = lazy(() => createUsageLedger(deps.db()));
  return createBudget({
    ledger: () => ledger,
    config: deps.config,
    now: deps.now,
    notices: createNoticeMemory(deps.paths.budgetNotices),
  });
}

import type { Config } from "../config/schema.ts";
import { lazy } from "../lazy.ts";
import type { Log } from "../observability/log.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { createUsageLedger } from "./ledger.ts";
import type { UsageLedger } from "./ledger-contract.ts";
import { createUsageMeter, withUsageMeter } from "./meter.ts";

/**
 * The app's router with the usage ledger attached: every part that scopes its calls (usage/meter.ts scopedRouter)
 * is counted in memory.db. The ledger opens memory.db only when the first call is counted.
 */
export function meterAppRouter(
  router: RouterDeps,
  deps: { db: () => SqlDatabase; config: () => Config; now: () => number; log: Log },
): RouterDeps {
  const ledger = lazy(() => createUsageLedger(deps.db()));
  return withUsageMeter(
    router,
    createUsageMeter({ ledger: () => ledger, config: deps.config, now: deps.now, log: deps.log }),
  );
}

/** What /usage reads: the ledger, config.toml as it is now (prices, budget, zone), and the clock. */
export type UsageDeps = { ledger: UsageLedger; config: () => Config; now: () => number };

/** The app's /usage: memory.db's ledger, opened when the command runs. */
export function createUsageDeps(deps: { db: SqlDatabase; config: () => Config; now: () => number }): UsageDeps {
  return { ledger: createUsageLedger(deps.db), config: deps.config, now: deps.now };
}

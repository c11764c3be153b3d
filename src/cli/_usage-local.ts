import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { createUsageLedger } from "../usage/ledger.ts";
import type { UsageGroupBy, UsageSummary } from "../usage/ledger-contract.ts";
import { ownerTimezone } from "../usage/owner-timezone.ts";
import { parseSince } from "../usage/since.ts";
import { withLocalDatabase } from "./_local-db.ts";

/**
 * The ledger as `fermix usage` reads it: memory.db opened read-only, whether or not a daemon runs. The daemon writes
 * each call's row when the call completes, and memory.db is in WAL mode, so this sees every call counted so far.
 * A home from before the ledger (no usage_ledger table) reads as no calls; the schema is the daemon's to migrate.
 */
export async function readUsage(opts: {
  since: string;
  by: UsageGroupBy;
}): Promise<{ summary: UsageSummary; since: number; timezone: string; note?: string }> {
  const paths = fermixPaths(resolveHome(processEnv()));
  const timezone = ownerTimezone(await loadConfig(paths.config));
  const now = Date.now();
  const since = parseSince(opts.since, now, timezone);
  const summary = withLocalDatabase({ mode: "read", table: "usage_ledger" }, (db) =>
    createUsageLedger(db).summarize({ since, until: now + 1, by: opts.by, timezone }),
  );
  const note =
    summary.total.costUsd === null
      ? 'cost unknown: a model in this span has no price; set one with [fermix_core.pricing."<provider>/<model>"] in config.toml\n'
      : undefined;
  return { summary, since, timezone, note };
}

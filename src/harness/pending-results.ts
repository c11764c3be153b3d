import type { SqlDatabase } from "../runtime/sqlite.ts";

/**
 * One indexed look before loading the harness: most turns have no coding result waiting. Kept apart from the
 * store so a turn can ask this without importing the harness's code (like jobs/pending-deliveries.ts).
 */
export function hasPendingHarnessResults(db: SqlDatabase): boolean {
  return db.query("SELECT 1 AS x FROM harness_runs WHERE delivery_status = 'pending' LIMIT 1").get() !== null;
}

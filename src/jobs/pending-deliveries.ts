import type { SqlDatabase } from "../runtime/sqlite.ts";

/**
 * One indexed look before loading the jobs module: most turns have no job answer waiting. Kept apart from the
 * store so a turn can ask this without importing any of jobs/.
 */
export function hasPendingDeliveries(db: SqlDatabase): boolean {
  return db.query("SELECT 1 AS x FROM job_runs WHERE delivery_status = 'pending' LIMIT 1").get() !== null;
}

import type { SqlDatabase } from "../runtime/sqlite.ts";
import { createJobRows } from "./job-rows.ts";
import type { JobStore } from "./job-store-contract.ts";
import { createRunClaims } from "./run-claims.ts";
import { createRunRows } from "./run-rows.ts";

/** Scheduled jobs and their runs in memory.db: the job rows, the run rows, and the claims that join them. */
export function createJobStore(db: SqlDatabase, now: () => number = Date.now): JobStore {
  const jobs = createJobRows(db, now);
  const runs = createRunRows(db, now, jobs);
  const claims = createRunClaims(db, now, { get: jobs.get, getRun: runs.getRun });
  return { ...jobs, ...runs, ...claims };
}

import { jobOperations } from "../jobs/job-operations.ts";
import { jobPayload } from "../jobs/job-payload.ts";
import { createJobStore } from "../jobs/job-store.ts";
import type { JobState, RunStatus } from "../jobs/job-types.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { withLocalDatabase } from "./_local-db.ts";

/** What `fermix jobs list|show|runs` read when no daemon runs, as the owner (who sees every job). */
export type LocalJobs = ReturnType<typeof localJobs>;

const OWNER = { trust: "operator" } as const;

/** Reads memory.db (read-only, for one read) as the owner's jobs; see _local-db.ts for a home without one. */
export function withJobDatabase<T>(read: (jobs: LocalJobs) => T): T {
  return withLocalDatabase({ mode: "read", table: "job_runs" }, (db) => read(localJobs(db)));
}

function localJobs(db: SqlDatabase) {
  const store = createJobStore(db);
  // Reads only: nothing here changes a job, so there is no clock to tell and no run to start.
  const ops = jobOperations(
    {
      store,
      role: "oneshot",
      changed: () => {},
      runNow: () => ({ ok: false, reason: "not_runnable" }),
    },
    Date.now,
  );
  return {
    list: (state?: JobState) => ops.list(OWNER, state),
    job: (id: string) => jobPayload(ops.find(OWNER, id)),
    runs: (id: string, opts: { status?: RunStatus; limit?: number }) => ops.runs(OWNER, id, opts),
  };
}

import { existsSync } from "node:fs";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { jobOperations } from "../jobs/job-operations.ts";
import { jobPayload } from "../jobs/job-payload.ts";
import { createJobStore } from "../jobs/job-store.ts";
import type { JobState, RunStatus } from "../jobs/job-types.ts";
import { migrate } from "../memory/db.ts";
import { openSqlite, type SqlDatabase } from "../runtime/sqlite.ts";

/** What `fermix jobs list|show|runs` read when no daemon runs, as the owner (who sees every job). */
export type LocalJobs = ReturnType<typeof localJobs>;

const OWNER = { trust: "operator" } as const;

/**
 * Opens memory.db read-only for one read and closes it. A home without memory.db (or with one from before
 * jobs existed) has no jobs: it is read as an empty database in memory, and nothing is created on disk.
 */
export function withJobDatabase<T>(read: (jobs: LocalJobs) => T): T {
  const path = fermixPaths(resolveHome(processEnv())).db;
  let db = existsSync(path) ? openSqlite(path, { readonly: true }) : undefined;
  if (db && !hasJobTables(db)) {
    db.close();
    db = undefined;
  }
  if (!db) {
    db = openSqlite(":memory:");
    migrate(db);
  }
  try {
    return read(localJobs(db));
  } finally {
    db.close();
  }
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

function hasJobTables(db: SqlDatabase): boolean {
  return db.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'job_runs'").get() !== null;
}

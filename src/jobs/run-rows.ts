import type { SqlDatabase } from "../runtime/sqlite.ts";
import { ACTIVE, type RunRow, toRun } from "./_store-rows.ts";
import type { JobRows, RunRows } from "./job-store-contract.ts";

/** job_runs: a run's row once its claim created it. */
export function createRunRows(db: SqlDatabase, now: () => number, jobs: Pick<JobRows, "get">): RunRows {
  const runById = db.query<RunRow>("SELECT * FROM job_runs WHERE id = $id");

  return {
    getRun(id) {
      const row = runById.get({ id });
      return row ? toRun(row) : undefined;
    },

    started(runId, snapshot) {
      db.query(
        `UPDATE job_runs SET status = 'running', started_at = $now, prompt_snapshot = $prompt,
           config_snapshot_json = $config, updated_at = $now WHERE id = $id`,
      ).run({ id: runId, now: now(), prompt: snapshot.prompt, config: JSON.stringify(snapshot.config) });
    },

    delivered(runId, status, error) {
      db.query(
        "UPDATE job_runs SET delivery_status = $status, delivery_error = $error, updated_at = $now WHERE id = $id",
      ).run({ id: runId, status, error: error ?? null, now: now() });
    },

    runs(jobId, opts = {}) {
      return db
        .query<RunRow>(
          `SELECT * FROM job_runs WHERE job_id = $job AND ($status IS NULL OR status = $status)
           ORDER BY created_at DESC, rowid DESC LIMIT $limit`,
        )
        .all({ job: jobId, status: opts.status ?? null, limit: opts.limit ?? 20 })
        .map(toRun);
    },

    pendingDeliveries(conversation) {
      const rows = db
        .query<RunRow>(
          `SELECT r.* FROM job_runs r JOIN scheduled_jobs j ON j.id = r.job_id
           WHERE r.delivery_status = 'pending' AND j.delivery_mode = 'origin' AND j.created_by_channel = $channel
             AND j.created_by_chat = $chat AND j.created_by_thread = $thread
           ORDER BY r.completed_at, r.rowid`,
        )
        .all({ channel: conversation.channel, chat: conversation.chat, thread: conversation.thread ?? "" });
      return rows.map((row) => ({ run: toRun(row), job: jobs.get(row.job_id)! }));
    },

    activeRuns() {
      return db.query<RunRow>(`SELECT * FROM job_runs WHERE ${ACTIVE} ORDER BY claimed_at`).all().map(toRun);
    },
  };
}

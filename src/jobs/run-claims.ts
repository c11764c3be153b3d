import { randomHex } from "../ids.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { ACTIVE, type JobRow, type RunRow, toJob, toRun } from "./_store-rows.ts";
import type { Claim, JobRows, RunClaims, RunRows } from "./job-store-contract.ts";
import type { JobRun, LastStatus } from "./job-types.ts";

/**
 * The writes that move a job and its run together. Claiming a due job and creating its run row happen in one
 * transaction that refuses while the job already has a queued or running run, so two ticks (or a tick and
 * run_job_now) can never start the same job twice.
 */
export function createRunClaims(
  db: SqlDatabase,
  now: () => number,
  rows: Pick<JobRows, "get"> & Pick<RunRows, "getRun">,
): RunClaims {
  const activeRunOf = db.query<RunRow>(`SELECT * FROM job_runs WHERE job_id = $id AND ${ACTIVE} LIMIT 1`);
  const insertRun = db.query<RunRow>(
    `INSERT INTO job_runs (id, job_id, session_id, trigger, status, claimed_at, delivery_status, created_at, updated_at)
     VALUES ($id, $job, $session, $trigger, 'queued', $now, 'none', $now, $now) RETURNING *`,
  );
  // The claim as one guarded write: only a scheduled job with no queued or running run is taken.
  const takeJob = db.query<JobRow>(
    `UPDATE scheduled_jobs SET state = 'running', next_run_at = $next, updated_at = $now
     WHERE id = $id AND state = 'scheduled'
       AND NOT EXISTS (SELECT 1 FROM job_runs WHERE job_id = $id AND ${ACTIVE})
     RETURNING *`,
  );
  // A run ended: a once job (no next time) or an expired one completes; a job paused meanwhile stays paused.
  const releaseJob = db.query(
    `UPDATE scheduled_jobs SET last_run_at = $now, last_status = $status, last_error = $error, updated_at = $now,
       state = CASE
         WHEN state <> 'running' THEN state
         WHEN next_run_at IS NULL OR (expires_at IS NOT NULL AND expires_at <= $now) THEN 'completed'
         ELSE 'scheduled' END
     WHERE id = $id`,
  );
  const settleRun = db.query<RunRow>(
    `UPDATE job_runs SET status = $status, completed_at = $now, final_response = $response, error = $error,
       token_usage_json = $tokens, tool_failures = $failures, delivery_status = $delivery,
       delivery_error = $delivery_error, updated_at = $now
     WHERE id = $id RETURNING *`,
  );

  function release(jobId: string, status: LastStatus, error: string | null, at: number): void {
    releaseJob.run({ id: jobId, now: at, status, error });
  }

  return {
    claim(input) {
      return db
        .transaction((): Claim => {
          const t = now();
          const taken = takeJob.get({ id: input.jobId, next: input.nextRunAt, now: t });
          if (!taken) {
            const job = rows.get(input.jobId);
            if (!job) return { ok: false, reason: "not_found" };
            if (activeRunOf.get({ id: job.id })) return { ok: false, reason: "already_running", job };
            return { ok: false, reason: "not_runnable", job };
          }
          const run = insertRun.get({
            id: `run_${randomHex(8)}`,
            job: taken.id,
            session: `cron_${taken.id}_${t}`,
            trigger: input.trigger,
            now: t,
          })!;
          return { ok: true, run: toRun(run), job: toJob(taken) };
        })
        .immediate();
    },

    finish(runId, outcome) {
      return db.transaction(() => {
        const t = now();
        const settled = settleRun.get({
          id: runId,
          now: t,
          status: outcome.status,
          response: outcome.finalResponse ?? null,
          error: outcome.error ?? null,
          tokens: outcome.tokenUsage ? JSON.stringify(outcome.tokenUsage) : null,
          failures: outcome.toolFailures ?? null,
          delivery: outcome.deliveryStatus,
          delivery_error: outcome.deliveryError ?? null,
        });
        if (!settled) return undefined;
        release(settled.job_id, outcome.status, outcome.status === "ok" ? null : (outcome.error ?? null), t);
        return toRun(settled);
      })();
    },

    reapInterrupted(reason, only) {
      return db.transaction(() => {
        const reaped: JobRun[] = [];
        const active = db.query<RunRow>(`SELECT * FROM job_runs WHERE ${ACTIVE}`).all().map(toRun);
        for (const run of active.filter((r) => !only || only.includes(r.id))) {
          const t = now();
          db.query(
            `UPDATE job_runs SET status = 'error', error = $error, completed_at = $now, updated_at = $now,
               delivery_status = CASE delivery_status WHEN 'pending' THEN 'failed' ELSE delivery_status END
             WHERE id = $id`,
          ).run({ id: run.id, error: reason, now: t });
          release(run.jobId, "error", reason, t);
          reaped.push(rows.getRun(run.id)!);
        }
        return reaped;
      })();
    },
  };
}

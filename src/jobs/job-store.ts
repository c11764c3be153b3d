import type { Trust } from "../capabilities/tool.ts";
import { randomHex } from "../ids.ts";
import type { ConversationKey } from "../memory/messages.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type {
  DeliveryStatus,
  Job,
  JobDraft,
  JobRun,
  JobState,
  LastStatus,
  RunStatus,
  RunTrigger,
  TokenUsage,
} from "./job-types.ts";

type JobRow = {
  id: string;
  name: string;
  description: string;
  schedule_kind: Job["scheduleKind"];
  schedule_expr: string;
  timezone: string;
  next_run_at: number | null;
  expires_at: number | null;
  task_prompt: string;
  skill_name: string | null;
  provider: string | null;
  model: string | null;
  timeout_seconds: number | null;
  inactivity_timeout_seconds: number | null;
  allowed_tools_json: string;
  delivery_mode: Job["deliveryMode"];
  delivery_target_json: string | null;
  state: JobState;
  last_run_at: number | null;
  last_status: LastStatus | null;
  last_error: string | null;
  created_by_trust: Trust;
  created_by_channel: string;
  created_by_chat: string;
  created_by_thread: string;
  created_at: number;
  updated_at: number;
};

type RunRow = {
  id: string;
  job_id: string;
  session_id: string;
  trigger: RunTrigger;
  status: RunStatus;
  claimed_at: number;
  started_at: number | null;
  completed_at: number | null;
  prompt_snapshot: string | null;
  config_snapshot_json: string | null;
  final_response: string | null;
  error: string | null;
  delivery_status: DeliveryStatus;
  delivery_error: string | null;
  token_usage_json: string | null;
  tool_failures: number | null;
  created_at: number;
  updated_at: number;
};

export type ClaimRefusal = "not_found" | "not_runnable" | "already_running";
export type Claim = { ok: true; run: JobRun; job: Job } | { ok: false; reason: ClaimRefusal; job?: Job };

export type RunOutcome = {
  status: "ok" | "error" | "timeout";
  finalResponse?: string;
  error?: string;
  tokenUsage?: TokenUsage;
  toolFailures?: number;
  deliveryStatus: DeliveryStatus;
  deliveryError?: string;
};

/** The fields update() may change: the draft's, and the scheduler's bookkeeping. */
export type JobPatch = Partial<JobDraft> &
  Partial<Pick<Job, "nextRunAt" | "state" | "lastStatus" | "lastError" | "lastRunAt">>;

export type JobStore = ReturnType<typeof createJobStore>;

const ACTIVE = "status IN ('queued', 'running')";

/**
 * Scheduled jobs and their runs in memory.db. Claiming a due job and creating its run row happen in one
 * transaction that refuses while the job already has a queued or running run, so two ticks (or a tick and
 * run_job_now) can never start the same job twice.
 */
export function createJobStore(db: SqlDatabase, now: () => number = Date.now) {
  const byId = db.query<JobRow>("SELECT * FROM scheduled_jobs WHERE id = $id");
  const runById = db.query<RunRow>("SELECT * FROM job_runs WHERE id = $id");
  const activeRunOf = db.query<RunRow>(`SELECT * FROM job_runs WHERE job_id = $id AND ${ACTIVE} LIMIT 1`);
  // Two indexed lookups rather than one OR: with 10,000 jobs a scan of them all would be the tick's whole cost.
  const dueJobs = db.query<JobRow>(
    `SELECT * FROM scheduled_jobs WHERE state = 'scheduled' AND next_run_at <= $now ORDER BY next_run_at LIMIT $limit`,
  );
  const expiredJobs = db.query<JobRow>(
    `SELECT * FROM scheduled_jobs WHERE state = 'scheduled' AND expires_at <= $now ORDER BY expires_at LIMIT $limit`,
  );
  const firstDue = db.query<{ at: number }>(
    `SELECT next_run_at AS at FROM scheduled_jobs WHERE state = 'scheduled' AND next_run_at IS NOT NULL
     ORDER BY next_run_at LIMIT 1`,
  );
  const firstExpiry = db.query<{ at: number }>(
    `SELECT expires_at AS at FROM scheduled_jobs WHERE state = 'scheduled' AND expires_at IS NOT NULL
     ORDER BY expires_at LIMIT 1`,
  );
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
  const advanceJob = db.query("UPDATE scheduled_jobs SET next_run_at = $next, updated_at = $now WHERE id = $id");
  const settleRun = db.query<RunRow>(
    `UPDATE job_runs SET status = $status, completed_at = $now, final_response = $response, error = $error,
       token_usage_json = $tokens, tool_failures = $failures, delivery_status = $delivery,
       delivery_error = $delivery_error, updated_at = $now
     WHERE id = $id RETURNING *`,
  );

  const get = (id: string): Job | undefined => {
    const row = byId.get({ id });
    return row ? toJob(row) : undefined;
  };
  const getRun = (id: string): JobRun | undefined => {
    const row = runById.get({ id });
    return row ? toRun(row) : undefined;
  };

  function update(id: string, patch: JobPatch): Job | undefined {
    const columns: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const column = COLUMN[key as keyof JobPatch];
      columns[column] = key === "allowedTools" || key === "deliveryTarget" ? json(value) : value;
    }
    if (Object.keys(columns).length) {
      const sets = Object.keys(columns).map((c) => `${c} = $${c}`);
      db.query(`UPDATE scheduled_jobs SET ${sets.join(", ")}, updated_at = $updated_at WHERE id = $id`).run({
        ...(columns as Record<string, string | number | null>),
        updated_at: now(),
        id,
      });
    }
    return get(id);
  }

  function release(jobId: string, status: LastStatus, error: string | null, at: number): void {
    releaseJob.run({ id: jobId, now: at, status, error });
  }

  return {
    get,
    getRun,
    update,

    create(draft: JobDraft, meta: { nextRunAt: number | null; trust: Trust; createdIn: ConversationKey }): Job {
      const id = jobId(draft.name);
      const t = now();
      db.query(
        `INSERT INTO scheduled_jobs (id, name, description, schedule_kind, schedule_expr, timezone, next_run_at,
           expires_at, task_prompt, skill_name, provider, model, timeout_seconds, inactivity_timeout_seconds,
           allowed_tools_json, delivery_mode, delivery_target_json, state, created_by_trust, created_by_channel,
           created_by_chat, created_by_thread, created_at, updated_at)
         VALUES ($id, $name, $description, $kind, $expr, $timezone, $next, $expires, $task, $skill, $provider, $model,
           $timeout, $inactivity, $tools, $mode, $target, 'scheduled', $trust, $channel, $chat, $thread, $now, $now)`,
      ).run({
        id,
        name: draft.name,
        description: draft.description,
        kind: draft.scheduleKind,
        expr: draft.scheduleExpr,
        timezone: draft.timezone,
        next: meta.nextRunAt,
        expires: draft.expiresAt,
        task: draft.taskPrompt,
        skill: draft.skillName,
        provider: draft.provider,
        model: draft.model,
        timeout: draft.timeoutSeconds,
        inactivity: draft.inactivityTimeoutSeconds,
        tools: json(draft.allowedTools),
        mode: draft.deliveryMode,
        target: json(draft.deliveryTarget),
        trust: meta.trust,
        channel: meta.createdIn.channel,
        chat: meta.createdIn.chat,
        thread: meta.createdIn.thread ?? "",
        now: t,
      });
      return get(id)!;
    },

    /** Every job, newest first; narrowed to one state and/or to the jobs one conversation created. */
    list(filter: { state?: JobState; createdIn?: ConversationKey } = {}): Job[] {
      const rows = db
        .query<JobRow>(
          `SELECT * FROM scheduled_jobs WHERE ($state IS NULL OR state = $state)
             AND ($channel IS NULL OR (created_by_channel = $channel AND created_by_chat = $chat AND created_by_thread = $thread))
           ORDER BY created_at DESC, id`,
        )
        .all({
          state: filter.state ?? null,
          channel: filter.createdIn?.channel ?? null,
          chat: filter.createdIn?.chat ?? null,
          thread: filter.createdIn?.thread ?? "",
        });
      return rows.map(toJob);
    },

    /** Moves a job's next run (a missed one skipped), without reading the job back: the tick's hot path. */
    advance(id: string, nextRunAt: number | null): void {
      advanceJob.run({ id, next: nextRunAt, now: now() });
    },

    /** Scheduled jobs whose time has come (or whose expiry has), earliest first. */
    due(at: number, limit: number): Job[] {
      const rows = new Map<string, JobRow>();
      for (const row of expiredJobs.all({ now: at, limit })) rows.set(row.id, row);
      for (const row of dueJobs.all({ now: at, limit })) rows.set(row.id, row);
      return [...rows.values()].slice(0, limit).map(toJob);
    },

    /** When the scheduler must next look: the earliest next run or expiry of a scheduled job. */
    earliestWake(): number | undefined {
      const times = [firstDue.get()?.at, firstExpiry.get()?.at].filter((t): t is number => typeof t === "number");
      return times.length ? Math.min(...times) : undefined;
    },

    /**
     * Claims a job for one run, in one transaction: refused while it has a queued or running run, or when it
     * is not scheduled. `nextRunAt` is the job's next time after this run (null: a once job, consumed).
     */
    claim(input: { jobId: string; trigger: RunTrigger; nextRunAt: number | null }): Claim {
      return db
        .transaction((): Claim => {
          const t = now();
          const taken = takeJob.get({ id: input.jobId, next: input.nextRunAt, now: t });
          if (!taken) {
            const job = get(input.jobId);
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

    /** The run's agent loop begins: what it was given is kept as it was. */
    started(runId: string, snapshot: { prompt: string; config: Record<string, unknown> }): void {
      db.query(
        `UPDATE job_runs SET status = 'running', started_at = $now, prompt_snapshot = $prompt,
           config_snapshot_json = $config, updated_at = $now WHERE id = $id`,
      ).run({ id: runId, now: now(), prompt: snapshot.prompt, config: JSON.stringify(snapshot.config) });
    },

    /** Settles a run and releases its job in one write. */
    finish(runId: string, outcome: RunOutcome): JobRun | undefined {
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

    /** Delivery happens after the run settles; its outcome is recorded on the run, never lost. */
    delivered(runId: string, status: DeliveryStatus, error?: string): void {
      db.query(
        "UPDATE job_runs SET delivery_status = $status, delivery_error = $error, updated_at = $now WHERE id = $id",
      ).run({ id: runId, status, error: error ?? null, now: now() });
    },

    /** A job's runs, newest first. */
    runs(jobId: string, opts: { status?: RunStatus; limit?: number } = {}): JobRun[] {
      return db
        .query<RunRow>(
          `SELECT * FROM job_runs WHERE job_id = $job AND ($status IS NULL OR status = $status)
           ORDER BY created_at DESC, rowid DESC LIMIT $limit`,
        )
        .all({ job: jobId, status: opts.status ?? null, limit: opts.limit ?? 20 })
        .map(toRun);
    },

    /** Finished runs of the jobs a conversation created whose answers wait for its next turn (origin delivery). */
    pendingDeliveries(conversation: ConversationKey): Array<{ job: Job; run: JobRun }> {
      const rows = db
        .query<RunRow>(
          `SELECT r.* FROM job_runs r JOIN scheduled_jobs j ON j.id = r.job_id
           WHERE r.delivery_status = 'pending' AND j.delivery_mode = 'origin' AND j.created_by_channel = $channel
             AND j.created_by_chat = $chat AND j.created_by_thread = $thread
           ORDER BY r.completed_at, r.rowid`,
        )
        .all({ channel: conversation.channel, chat: conversation.chat, thread: conversation.thread ?? "" });
      return rows.map((row) => ({ run: toRun(row), job: get(row.job_id)! }));
    },

    activeRuns(): JobRun[] {
      return db.query<RunRow>(`SELECT * FROM job_runs WHERE ${ACTIVE} ORDER BY claimed_at`).all().map(toRun);
    },

    /**
     * Runs left queued or running by a daemon that stopped without settling them (killed, crashed): they are
     * marked failed with `reason` and their jobs released — never replayed.
     */
    reapInterrupted(reason: string, only?: readonly string[]): JobRun[] {
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
          reaped.push(getRun(run.id)!);
        }
        return reaped;
      })();
    },

    /** Removes a job and its runs; refused (false) while a run is active. */
    remove(id: string): "removed" | "not_found" | "running" {
      return db.transaction(() => {
        if (!get(id)) return "not_found" as const;
        if (activeRunOf.get({ id })) return "running" as const;
        db.query("DELETE FROM scheduled_jobs WHERE id = $id").run({ id });
        return "removed" as const;
      })();
    },
  };
}

const COLUMN: Record<keyof JobPatch, string> = {
  name: "name",
  description: "description",
  scheduleKind: "schedule_kind",
  scheduleExpr: "schedule_expr",
  timezone: "timezone",
  expiresAt: "expires_at",
  taskPrompt: "task_prompt",
  skillName: "skill_name",
  provider: "provider",
  model: "model",
  timeoutSeconds: "timeout_seconds",
  inactivityTimeoutSeconds: "inactivity_timeout_seconds",
  allowedTools: "allowed_tools_json",
  deliveryMode: "delivery_mode",
  deliveryTarget: "delivery_target_json",
  nextRunAt: "next_run_at",
  state: "state",
  lastStatus: "last_status",
  lastError: "last_error",
  lastRunAt: "last_run_at",
};

/** slug(name) + "_" + a base-36 suffix: readable in listings, unique enough to never collide in practice. */
function jobId(name: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 40) || "job";
  const suffix = Number.parseInt(randomHex(5), 16).toString(36);
  return `${slug}_${suffix}`;
}

function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function toJob(r: JobRow): Job {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    scheduleKind: r.schedule_kind,
    scheduleExpr: r.schedule_expr,
    timezone: r.timezone,
    nextRunAt: r.next_run_at,
    expiresAt: r.expires_at,
    taskPrompt: r.task_prompt,
    skillName: r.skill_name,
    provider: r.provider,
    model: r.model,
    timeoutSeconds: r.timeout_seconds,
    inactivityTimeoutSeconds: r.inactivity_timeout_seconds,
    allowedTools: JSON.parse(r.allowed_tools_json),
    deliveryMode: r.delivery_mode,
    deliveryTarget: r.delivery_target_json ? JSON.parse(r.delivery_target_json) : null,
    state: r.state,
    lastRunAt: r.last_run_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdByTrust: r.created_by_trust,
    createdIn: {
      channel: r.created_by_channel,
      chat: r.created_by_chat,
      ...(r.created_by_thread ? { thread: r.created_by_thread } : {}),
    },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRun(r: RunRow): JobRun {
  return {
    id: r.id,
    jobId: r.job_id,
    sessionId: r.session_id,
    trigger: r.trigger,
    status: r.status,
    claimedAt: r.claimed_at,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    promptSnapshot: r.prompt_snapshot,
    configSnapshot: r.config_snapshot_json ? JSON.parse(r.config_snapshot_json) : null,
    finalResponse: r.final_response,
    error: r.error,
    deliveryStatus: r.delivery_status,
    deliveryError: r.delivery_error,
    tokenUsage: r.token_usage_json ? JSON.parse(r.token_usage_json) : null,
    toolFailures: r.tool_failures,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

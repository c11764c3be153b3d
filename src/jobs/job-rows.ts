import { randomHex } from "../ids.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { ACTIVE, COLUMN, type JobRow, json, type RunRow, toJob } from "./_store-rows.ts";
import type { JobPatch, JobRows } from "./job-store-contract.ts";

/** scheduled_jobs: a job's own row. */
export function createJobRows(db: SqlDatabase, now: () => number): JobRows {
  const byId = db.query<JobRow>("SELECT * FROM scheduled_jobs WHERE id = $id");
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
  const advanceJob = db.query("UPDATE scheduled_jobs SET next_run_at = $next, updated_at = $now WHERE id = $id");

  const get = (id: string) => {
    const row = byId.get({ id });
    return row ? toJob(row) : undefined;
  };

  return {
    get,

    update(id: string, patch: JobPatch) {
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
    },

    create(draft, meta) {
      const id = jobId(draft.name);
      const t = now();
      db.query(
        `INSERT INTO scheduled_jobs (id, name, description, schedule_kind, schedule_expr, timezone, next_run_at,
           expires_at, task_prompt, skill_name, provider, model, timeout_seconds, inactivity_timeout_seconds,
           allowed_tools_json, delivery_mode, delivery_target_json, state, created_by_trust, created_by_channel,
           created_by_chat, created_by_thread, created_at, updated_at, max_usd)
         VALUES ($id, $name, $description, $kind, $expr, $timezone, $next, $expires, $task, $skill, $provider, $model,
           $timeout, $inactivity, $tools, $mode, $target, 'scheduled', $trust, $channel, $chat, $thread, $now, $now,
           $max_usd)`,
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
        max_usd: draft.maxUsd,
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

    list(filter = {}) {
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

    advance(id, nextRunAt) {
      advanceJob.run({ id, next: nextRunAt, now: now() });
    },

    due(at, limit) {
      const rows = new Map<string, JobRow>();
      for (const row of expiredJobs.all({ now: at, limit })) rows.set(row.id, row);
      for (const row of dueJobs.all({ now: at, limit })) rows.set(row.id, row);
      return [...rows.values()].slice(0, limit).map(toJob);
    },

    earliestWake() {
      const times = [firstDue.get()?.at, firstExpiry.get()?.at].filter((t): t is number => typeof t === "number");
      return times.length ? Math.min(...times) : undefined;
    },

    remove(id) {
      return db.transaction(() => {
        if (!get(id)) return "not_found" as const;
        if (activeRunOf.get({ id })) return "running" as const;
        db.query("DELETE FROM scheduled_jobs WHERE id = $id").run({ id });
        return "removed" as const;
      })();
    },
  };
}

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

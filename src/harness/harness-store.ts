import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import {
  ACTIVE_STATUSES,
  type DeliveryAttempt,
  type DeliveryState,
  type FailureTag,
  type HarnessRun,
  type RunStatus,
  type Vendor,
} from "./harness-types.ts";

type Row = {
  id: string;
  vendor: Vendor;
  status: RunStatus;
  cwd: string;
  prompt: string;
  argv_json: string;
  params_json: string;
  progress: "quiet" | "milestones";
  origin_channel: string;
  origin_chat: string;
  origin_thread: string;
  job_id: string | null;
  pid: number | null;
  vendor_session: string | null;
  final_message: string | null;
  error: string | null;
  failure_tag: FailureTag | null;
  exit_code: number | null;
  events: number;
  framing_errors: number;
  usage_json: string | null;
  last_milestone: string | null;
  delivery_status: Exclude<DeliveryState, "retrying">;
  delivery_error: string | null;
  delivery_attempts_json: string | null;
  delivery_retry_at: number | null;
  started_at: number;
  completed_at: number | null;
};

const ACTIVE = `status IN (${ACTIVE_STATUSES.map((s) => `'${s}'`).join(", ")})`;

/** harness_runs in memory.db: one row per coding run, kept after it ends so its result can be read again. */
export function createHarnessStore(db: SqlDatabase, now: () => number): HarnessStore {
  const get = (id: string): HarnessRun | undefined => {
    const row = db.query<Row>("SELECT * FROM harness_runs WHERE id = $id").get({ id });
    return row ? toRun(row) : undefined;
  };
  return {
    get,

    create(run) {
      const t = now();
      db.query(
        `INSERT INTO harness_runs (id, vendor, status, cwd, prompt, argv_json, params_json, progress, origin_channel,
           origin_chat, origin_thread, job_id, started_at, updated_at)
         VALUES ($id, $vendor, 'starting', $cwd, $prompt, $argv, $params, $progress, $channel, $chat, $thread, $job,
           $started, $t)`,
      ).run({
        id: run.id,
        vendor: run.vendor,
        cwd: run.cwd,
        prompt: run.prompt,
        argv: JSON.stringify(run.argv),
        params: JSON.stringify(run.params),
        progress: run.progress,
        channel: run.origin.channel,
        chat: run.origin.chat,
        thread: run.origin.thread ?? "",
        job: run.jobId ?? null,
        started: run.startedAt,
        t,
      });
      return get(run.id)!;
    },

    running(id, pid) {
      db.query("UPDATE harness_runs SET status = 'running', pid = $pid, updated_at = $t WHERE id = $id").run({
        id,
        pid,
        t: now(),
      });
    },

    progress(id, p) {
      db.query(
        `UPDATE harness_runs SET vendor_session = COALESCE($session, vendor_session),
           last_milestone = COALESCE($milestone, last_milestone), events = $events, framing_errors = $framing,
           updated_at = $t WHERE id = $id`,
      ).run({
        id,
        session: p.vendorSession ?? null,
        milestone: p.milestone ?? null,
        events: p.events,
        framing: p.framingErrors,
        t: now(),
      });
    },

    finish(id, end) {
      const t = now();
      const changed = db
        .query(
          `UPDATE harness_runs SET status = $status, final_message = $final, error = $error, failure_tag = $tag,
             exit_code = $exit, events = COALESCE($events, events), framing_errors = COALESCE($framing, framing_errors),
             usage_json = $usage, vendor_session = COALESCE($session, vendor_session), completed_at = $t,
             updated_at = $t
           WHERE id = $id AND ${ACTIVE}`,
        )
        .run({
          id,
          status: end.status,
          final: end.finalMessage ?? null,
          error: end.error ?? null,
          tag: end.failureTag ?? null,
          exit: end.exitCode ?? null,
          events: end.events ?? null,
          framing: end.framingErrors ?? null,
          usage: end.usage === undefined ? null : JSON.stringify(end.usage),
          session: end.vendorSession ?? null,
          t,
        });
      return changed.changes > 0;
    },

    delivered(id, status, error) {
      db.query(
        `UPDATE harness_runs SET delivery_status = $status, delivery_error = $error, delivery_retry_at = NULL,
           updated_at = $t WHERE id = $id`,
      ).run({ id, status, error: error ?? null, t: now() });
    },

    deliveryDue(id, at, error) {
      db.query(
        `UPDATE harness_runs SET delivery_status = 'none', delivery_error = COALESCE($error, delivery_error),
           delivery_retry_at = $at, updated_at = $t WHERE id = $id`,
      ).run({ id, at, error: error ?? null, t: now() });
    },

    deliveryAttempt(id, attempt) {
      // json_insert at '$[#]' appends in place, so two writers never lose each other's attempts.
      db.query(
        `UPDATE harness_runs SET delivery_attempts_json = json_insert(COALESCE(delivery_attempts_json, '[]'), '$[#]',
           json($attempt)), updated_at = $t WHERE id = $id`,
      ).run({ id, attempt: JSON.stringify(attempt), t: now() });
    },

    dueDeliveries() {
      return db
        .query<Row>(
          `SELECT * FROM harness_runs WHERE delivery_retry_at IS NOT NULL AND NOT ${ACTIVE} ORDER BY delivery_retry_at`,
        )
        .all()
        .map(toRun);
    },

    list(filter = {}) {
      return db
        .query<Row>(
          `SELECT * FROM harness_runs WHERE ($status IS NULL OR status = $status)
           ORDER BY started_at DESC, rowid DESC LIMIT $limit`,
        )
        .all({ status: filter.status ?? null, limit: filter.limit ?? 20 })
        .map(toRun);
    },

    active() {
      return db.query<Row>(`SELECT * FROM harness_runs WHERE ${ACTIVE} ORDER BY started_at`).all().map(toRun);
    },

    pendingFor(conversation) {
      return db
        .query<Row>(
          `SELECT * FROM harness_runs WHERE delivery_status = 'pending' AND origin_channel = $channel
             AND origin_chat = $chat AND origin_thread = $thread ORDER BY completed_at, rowid`,
        )
        .all({ channel: conversation.channel, chat: conversation.chat, thread: conversation.thread ?? "" })
        .map(toRun);
    },

    interruptLeftovers(reason) {
      const left = db.query<Row>(`SELECT * FROM harness_runs WHERE ${ACTIVE}`).all().map(toRun);
      for (const run of left) this.finish(run.id, { status: "interrupted", error: reason });
      return left;
    },
  };
}

function toRun(row: Row): HarnessRun {
  const attempts = row.delivery_attempts_json ? (JSON.parse(row.delivery_attempts_json) as DeliveryAttempt[]) : [];
  return {
    id: row.id,
    vendor: row.vendor,
    status: row.status,
    cwd: row.cwd,
    prompt: row.prompt,
    argv: JSON.parse(row.argv_json) as string[],
    params: JSON.parse(row.params_json) as Record<string, unknown>,
    progress: row.progress,
    origin: {
      channel: row.origin_channel,
      chat: row.origin_chat,
      ...(row.origin_thread ? { thread: row.origin_thread } : {}),
    },
    ...(row.job_id ? { jobId: row.job_id } : {}),
    ...(row.pid !== null ? { pid: row.pid } : {}),
    ...(row.vendor_session ? { vendorSession: row.vendor_session } : {}),
    ...(row.final_message !== null ? { finalMessage: row.final_message } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.failure_tag ? { failureTag: row.failure_tag } : {}),
    ...(row.exit_code !== null ? { exitCode: row.exit_code } : {}),
    events: row.events,
    framingErrors: row.framing_errors,
    ...(row.usage_json ? { usage: JSON.parse(row.usage_json) } : {}),
    ...(row.last_milestone ? { lastMilestone: row.last_milestone } : {}),
    delivery: deliveryOf(row, attempts),
    ...(row.delivery_error ? { deliveryError: row.delivery_error } : {}),
    deliveryAttempts: attempts,
    ...(row.delivery_retry_at !== null ? { deliveryRetryAt: row.delivery_retry_at } : {}),
    startedAt: row.started_at,
    ...(row.completed_at !== null ? { completedAt: row.completed_at } : {}),
  };
}

/** "retrying" is not stored (migration 6's CHECK predates it): it is a planned attempt after a failed one. */
function deliveryOf(row: Row, attempts: readonly DeliveryAttempt[]): DeliveryState {
  return row.delivery_retry_at !== null && attempts.length > 0 ? "retrying" : row.delivery_status;
}

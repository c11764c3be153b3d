import * as v from "valibot";

/**
 * The daemon's HTTP-over-unix-socket protocol. Both sides import these schemas: the daemon validates
 * what arrives, the client validates what comes back. Ask's part lives in ask-schemas.ts and ask-answer-schemas.ts
 * (the hot path loads only those) and is re-exported here, so either side imports the whole protocol from this one
 * module.
 */
export { ApprovalRequest, AskDone, AskNotice, AskText, ErrorBody } from "./ask-answer-schemas.ts";
export { AskRequest, MIN_CLIENT_PROTOCOL, PROTOCOL_HEADER, PROTOCOL_VERSION, SessionId } from "./ask-schemas.ts";
export { JOB_STATES, JobListQuery, RUN_STATUSES, RunListQuery } from "./job-queries.ts";

/** One part of the daemon (src/subsystems.ts) as `status`, `/v1/health` and doctor show it; absent from an older daemon. */
export const SubsystemStatus = v.object({ name: v.string(), state: v.string(), detail: v.optional(v.string()) });
export type SubsystemStatus = v.InferOutput<typeof SubsystemStatus>;

export const Health = v.object({
  ok: v.boolean(),
  version: v.string(),
  pid: v.number(),
  subsystems: v.optional(v.array(SubsystemStatus)),
});
export type Health = v.InferOutput<typeof Health>;

export const Hello = v.object({
  version: v.string(),
  protocol: v.object({ version: v.number(), min_client: v.number() }),
});
export type Hello = v.InferOutput<typeof Hello>;

export const Status = v.object({
  pid: v.number(),
  version: v.string(),
  started_at: v.string(),
  uptime_ms: v.number(),
  home: v.string(),
  protocol: v.number(),
  primary_provider: v.nullable(v.string()),
  fallback_providers: v.array(v.string()),
  active_turns: v.number(),
  subsystems: v.optional(v.array(SubsystemStatus)),
  /** The setup page ([fermix_web], src/web/server.ts): disabled, listening on 127.0.0.1, or failed with the reason. */
  web: v.optional(v.looseObject({ state: v.string(), port: v.optional(v.number()), reason: v.optional(v.string()) })),
  /** The daemon's trace exporters (src/observability/export/), empty when off; absent from an older daemon. */
  trace_export: v.optional(
    v.array(
      v.looseObject({
        name: v.string(),
        target: v.string(),
        sent: v.number(),
        dropped: v.number(),
        failing: v.boolean(),
        lastError: v.optional(v.string()),
      }),
    ),
  ),
  /**
   * Errors nothing handled since the daemon started (an unhandled rejection, an uncaught exception): each was
   * logged and traced as `daemon_error`, and the daemon kept serving. Absent from an older daemon.
   */
  daemon_errors: v.optional(v.number()),
});
export type Status = v.InferOutput<typeof Status>;

/** One plugin's live state (see src/plugins/live-status.ts for what each field means). */
export const LivePluginState = v.object({
  name: v.string(),
  version: v.optional(v.string()),
  source: v.string(),
  enabled: v.boolean(),
  status: v.string(),
  readiness: v.string(),
  detail: v.optional(v.string()),
  attempt: v.optional(v.number()),
  max_attempts: v.optional(v.number()),
  tools: v.optional(v.number()),
  reason: v.optional(v.string()),
  fix: v.optional(v.string()),
  load_error: v.optional(v.string()),
});
export type LivePluginState = v.InferOutput<typeof LivePluginState>;

/**
 * `GET /v1/plugins`: every plugin with its state in the running daemon. `active` is false while the daemon has
 * no plugin enabled (it then loads nothing for plugins, and the list is empty: the CLI computes one itself).
 */
export const PluginsReport = v.object({
  active: v.boolean(),
  plugins: v.array(LivePluginState),
  /** dev_local folders that did not load, each with a sentence naming the folder, the problem and the fix. */
  problems: v.array(v.object({ folder: v.string(), message: v.string() })),
});
export type PluginsReport = v.InferOutput<typeof PluginsReport>;

/** One chat channel as the daemon runs it (src/gateway/channels-runtime.ts): its state and its platform's health. */
export const ChannelStatus = v.looseObject({
  name: v.string(),
  /** starting, running, refused (its config lets nobody in), failed (could not start). */
  state: v.string(),
  connected: v.boolean(),
  last_update_at: v.nullable(v.string()),
  /** Set after repeated failures: what is wrong and what to do. */
  degraded: v.nullable(v.string()),
  /** Why it was refused or failed. */
  reason: v.nullable(v.string()),
});
export type ChannelStatus = v.InferOutput<typeof ChannelStatus>;

/**
 * The webhook port ([fermix_web] webhook_port, src/gateway/webhooks/webhook-listener.ts): idle while no enabled
 * channel takes webhooks, listening, or failed (the port in use: `reason` says what to do).
 */
export const WebhooksState = v.looseObject({
  state: v.string(),
  port: v.optional(v.number()),
  reason: v.optional(v.string()),
});
export type WebhooksState = v.InferOutput<typeof WebhooksState>;

/** `GET /v1/channels`: every enabled channel, in registry order (empty when config.toml enables none). */
export const ChannelsReport = v.object({ channels: v.array(ChannelStatus), webhooks: v.optional(WebhooksState) });
export type ChannelsReport = v.InferOutput<typeof ChannelsReport>;

/** `POST /v1/skills/reload`: what changed, as names and load errors (no skill bodies cross the socket). */
export const SkillReloadReport = v.object({
  total: v.number(),
  added: v.array(v.string()),
  removed: v.array(v.string()),
  changed: v.array(v.string()),
  errors: v.array(v.object({ file: v.string(), reason: v.string(), field: v.optional(v.string()) })),
});
export type SkillReloadReport = v.InferOutput<typeof SkillReloadReport>;

/*
 * Scheduled jobs (src/jobs/job-payload.ts makes these shapes). Loose on purpose: a field a newer daemon adds
 * passes through an older CLI untouched; only what the CLI reads is checked.
 */
export const JobPayload = v.looseObject({
  id: v.string(),
  name: v.string(),
  description: v.optional(v.string(), ""),
  state: v.string(),
  schedule_kind: v.string(),
  schedule_expr: v.string(),
  timezone: v.string(),
  next_run_at: v.nullable(v.string()),
  expires_at: v.optional(v.nullable(v.string()), null),
  task_prompt: v.string(),
  skill_name: v.optional(v.nullable(v.string()), null),
  provider: v.optional(v.nullable(v.string()), null),
  model: v.optional(v.nullable(v.string()), null),
  allowed_tools: v.optional(v.array(v.string()), []),
  delivery_mode: v.string(),
  delivery_target: v.optional(
    v.nullable(v.looseObject({ platform: v.string(), chat_id: v.string(), thread: v.optional(v.string()) })),
    null,
  ),
  last_run_at: v.nullable(v.string()),
  last_status: v.nullable(v.string()),
  last_error: v.nullable(v.string()),
  created_by_trust: v.optional(v.string()),
  created_at: v.optional(v.nullable(v.string()), null),
});
export type JobPayload = v.InferOutput<typeof JobPayload>;

export const RunPayload = v.looseObject({
  id: v.string(),
  job_id: v.string(),
  trigger: v.string(),
  status: v.string(),
  claimed_at: v.nullable(v.string()),
  started_at: v.nullable(v.string()),
  completed_at: v.nullable(v.string()),
  final_response: v.nullable(v.string()),
  error: v.nullable(v.string()),
});
export type RunPayload = v.InferOutput<typeof RunPayload>;

/** `GET /v1/jobs?state=`: every job, newest first. */
export const JobList = v.object({ jobs: v.array(JobPayload) });
export type JobList = v.InferOutput<typeof JobList>;
/** `GET /v1/jobs/<id>`, and the job after `POST /v1/jobs/<id>/pause` or `/resume`. */
export const JobAnswer = v.object({ job: JobPayload });
export type JobAnswer = v.InferOutput<typeof JobAnswer>;
/** `GET /v1/jobs/<id>/runs?status=&limit=`: its runs, newest first. */
export const RunList = v.object({ runs: v.array(RunPayload) });
export type RunList = v.InferOutput<typeof RunList>;
/** `GET /v1/runs/<id>` (with the prompt and config snapshots), and `POST /v1/jobs/<id>/run` (202, once claimed). */
export const RunAnswer = v.object({ run: RunPayload });
export type RunAnswer = v.InferOutput<typeof RunAnswer>;
/** `DELETE /v1/jobs/<id>`. */
export const JobRemoved = v.object({ removed: v.boolean(), job_id: v.string() });
export type JobRemoved = v.InferOutput<typeof JobRemoved>;

import type { Job, JobRun } from "./job-types.ts";

/*
 * Jobs and runs as the tools, the socket and `fermix jobs --json` show them: snake_case, instants as ISO 8601.
 */

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export type JobPayload = ReturnType<typeof jobPayload>;
export type RunPayload = ReturnType<typeof runPayload>;

export function jobPayload(job: Job) {
  return {
    id: job.id,
    name: job.name,
    description: job.description,
    state: job.state,
    enabled: job.state === "scheduled" || job.state === "running",
    schedule_kind: job.scheduleKind,
    schedule_expr: job.scheduleExpr,
    timezone: job.timezone,
    next_run_at: iso(job.nextRunAt),
    expires_at: iso(job.expiresAt),
    task_prompt: job.taskPrompt,
    skill_name: job.skillName,
    provider: job.provider,
    model: job.model,
    allowed_tools: job.allowedTools,
    timeout_seconds: job.timeoutSeconds,
    inactivity_timeout_seconds: job.inactivityTimeoutSeconds,
    max_usd: job.maxUsd,
    delivery_mode: job.deliveryMode,
    delivery_target: job.deliveryTarget,
    memory_source_id: `job:${job.id}`,
    created_by_trust: job.createdByTrust,
    last_run_at: iso(job.lastRunAt),
    last_status: job.lastStatus,
    last_error: job.lastError,
    created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
  };
}

/** A run in a listing; `full` adds what it was given (the prompt and config snapshots). */
export function runPayload(run: JobRun, opts: { full?: boolean } = {}) {
  return {
    id: run.id,
    job_id: run.jobId,
    session_id: run.sessionId,
    trigger: run.trigger,
    status: run.status,
    claimed_at: iso(run.claimedAt),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    final_response: run.finalResponse,
    error: run.error,
    delivery_status: run.deliveryStatus,
    delivery_error: run.deliveryError,
    token_usage: run.tokenUsage,
    tool_failures: run.toolFailures,
    ...(opts.full ? { prompt_snapshot: run.promptSnapshot, config_snapshot: run.configSnapshot } : {}),
  };
}

import type { Trust } from "../capabilities/caller.ts";
import type { JobPatch } from "./job-store-contract.ts";
import type { DeliveryStatus, Job, JobRun, JobState, LastStatus, RunStatus, RunTrigger } from "./job-types.ts";

// The rows of scheduled_jobs and job_runs as SQLite returns them, and their mapping to Job and JobRun: shared by
// the parts of the job store.

export type JobRow = {
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
  max_usd: number | null;
};

export type RunRow = {
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

export const ACTIVE = "status IN ('queued', 'running')";

export const COLUMN: Record<keyof JobPatch, string> = {
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
  maxUsd: "max_usd",
  deliveryMode: "delivery_mode",
  deliveryTarget: "delivery_target_json",
  nextRunAt: "next_run_at",
  state: "state",
  lastStatus: "last_status",
  lastError: "last_error",
  lastRunAt: "last_run_at",
};

export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function toJob(r: JobRow): Job {
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
    maxUsd: r.max_usd,
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

export function toRun(r: RunRow): JobRun {
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

import type { Trust } from "../capabilities/caller.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";

export type ScheduleKind = "interval" | "once" | "cron";
/**
 * scheduled → running (claimed) → scheduled again; `paused` by the owner; `disabled` when the stored schedule
 * no longer parses (terminal until update_job fixes it and resume_job restarts it); `completed` when a once job
 * ran or the job expired.
 */
export type JobState = "scheduled" | "running" | "paused" | "disabled" | "completed";
/** `budget`: the run was refused (or stopped) by a budget — [fermix_core.budget] or the job's max_usd (issue 30). */
export type LastStatus = "ok" | "error" | "timeout" | "expired" | "budget";
export type RunStatus = "queued" | "running" | "ok" | "error" | "timeout" | "budget";
export type RunTrigger = "schedule" | "manual";
export type DeliveryMode = "none" | "local" | "origin" | "channel";
/** `none` (mode none), `skipped` (the answer was the silent marker), `pending` → `sent` | `failed`. */
export type DeliveryStatus = "none" | "skipped" | "pending" | "sent" | "failed";

/** Where a result goes for `channel` (and `origin`, resolved at creation): a chat on a platform. */
export type DeliveryTarget = { platform: string; chat_id: string; thread?: string };

/** What a job is asked to do and under which limits: what schedule_job sets and update_job edits. */
export type JobDraft = {
  name: string;
  description: string;
  scheduleKind: ScheduleKind;
  scheduleExpr: string;
  timezone: string;
  expiresAt: number | null;
  taskPrompt: string;
  skillName: string | null;
  provider: string | null;
  model: string | null;
  /** Set at creation only. */
  timeoutSeconds: number | null;
  inactivityTimeoutSeconds: number | null;
  /** Empty: no narrowing beyond the creator's surface. */
  allowedTools: string[];
  /** The most one run may spend, in USD (null: no limit of its own; the owner's budgets still apply). */
  maxUsd: number | null;
  deliveryMode: DeliveryMode;
  deliveryTarget: DeliveryTarget | null;
};

export type Job = JobDraft & {
  id: string;
  nextRunAt: number | null;
  state: JobState;
  lastRunAt: number | null;
  lastStatus: LastStatus | null;
  lastError: string | null;
  createdByTrust: Trust;
  /** The conversation that created the job: where `origin` delivers, and whose jobs a guest may see. */
  createdIn: ConversationKey;
  createdAt: number;
  updatedAt: number;
};

export type TokenUsage = { input: number; output: number; total: number };

export type JobRun = {
  id: string;
  jobId: string;
  /** `cron_<job id>_<claim time>`: the run's own conversation, isolated from the creating chat. */
  sessionId: string;
  trigger: RunTrigger;
  status: RunStatus;
  claimedAt: number;
  startedAt: number | null;
  completedAt: number | null;
  /** The messages the run started with, `ROLE:\n<content>` joined by `---`. */
  promptSnapshot: string | null;
  /** The task, limits and route the run executed under (not the job's current ones). */
  configSnapshot: Record<string, unknown> | null;
  finalResponse: string | null;
  error: string | null;
  deliveryStatus: DeliveryStatus;
  deliveryError: string | null;
  tokenUsage: TokenUsage | null;
  toolFailures: number | null;
  createdAt: number;
  updatedAt: number;
};

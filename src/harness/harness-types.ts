import { HARNESS_VENDORS } from "../config/sections/harness.ts";
import { defineError } from "../error.ts";

export type Vendor = (typeof HARNESS_VENDORS)[number];
export { HARNESS_VENDORS };

/** How each vendor is named to people, and the command found on PATH. */
export const VENDOR_LABEL: Record<Vendor, string> = { codex: "Codex", claude: "Claude Code" };
export const VENDOR_COMMAND: Record<Vendor, string> = { codex: "codex", claude: "claude" };

export const ACTIVE_STATUSES = ["starting", "submitting", "running", "polling"] as const;
export const RUN_STATUSES = [...ACTIVE_STATUSES, "completed", "failed", "blocked", "cancelled", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Why a run was refused or ended badly, as a short tag the model and `get_coding_run` show. The first six are the
 * admission refusals; the rest say how a started run failed.
 */
export type FailureTag =
  | "not_authorized"
  | "consent_required"
  | "cwd_denied"
  | "cli_unavailable"
  | "vendor_config_changed"
  | "max_active"
  | "workspace_locked"
  | "daemon_required"
  | "timeout"
  | "inactivity"
  | "framing"
  | "vendor_error"
  | "exit_nonzero"
  | "spawn_failed";

/**
 * Where a run's result stands: "stored" (nobody to tell), "pending" (a CLI session's next ask shows it), "sent",
 * "failed" (every attempt failed; the last error says why), "retrying" (an attempt failed, another is planned).
 */
export type DeliveryState = "none" | "stored" | "pending" | "sent" | "failed" | "retrying";

/** One try at delivering a run's result, as get_coding_run shows it. */
export type DeliveryAttempt = { at: number; status: Exclude<DeliveryState, "none" | "retrying">; error?: string };

export type HarnessRun = {
  id: string;
  vendor: Vendor;
  status: RunStatus;
  cwd: string;
  prompt: string;
  argv: string[];
  params: Record<string, unknown>;
  progress: "quiet" | "milestones";
  origin: { channel: string; chat: string; thread?: string };
  jobId?: string;
  pid?: number;
  vendorSession?: string;
  finalMessage?: string;
  error?: string;
  failureTag?: FailureTag;
  exitCode?: number;
  events: number;
  framingErrors: number;
  usage?: unknown;
  lastMilestone?: string;
  delivery: DeliveryState;
  deliveryError?: string;
  deliveryAttempts: DeliveryAttempt[];
  /** When the next delivery attempt is due, while one is planned. */
  deliveryRetryAt?: number;
  startedAt: number;
  completedAt?: number;
};

/** A run the harness would not start: the sentence says why and what to do; `tag` is the short reason. */
export const HarnessRefused = defineError<{ tag: FailureTag }>("harness_refused");

/** The defaults of [fermix_core.harness] that the harness enforces. */
export const HARNESS_DEFAULTS = {
  maxActive: 2,
  defaultTimeoutMinutes: 30,
  inactivityMinutes: 10,
  timeoutCapMinutes: 240,
  promptArgvMaxKb: 200,
  maxEventBytes: 1024 * 1024,
  maxFramingErrors: 20,
  deliveryMaxAttempts: 20,
  deliveryMaxAgeHours: 24,
} as const;

import type { Trust } from "../capabilities/caller.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type {
  DeliveryStatus,
  Job,
  JobDraft,
  JobRun,
  JobState,
  RunStatus,
  RunTrigger,
  TokenUsage,
} from "./job-types.ts";

export type ClaimRefusal = "not_found" | "not_runnable" | "already_running";
export type Claim = { ok: true; run: JobRun; job: Job } | { ok: false; reason: ClaimRefusal; job?: Job };

export type RunOutcome = {
  status: "ok" | "error" | "timeout" | "budget";
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

/** What a job's creation records besides its draft. */
export type JobCreation = { nextRunAt: number | null; trust: Trust; createdIn: ConversationKey };

/** The scheduled_jobs side: a job's own row, read and edited. */
export interface JobRows {
  get(id: string): Job | undefined;
  update(id: string, patch: JobPatch): Job | undefined;
  create(draft: JobDraft, meta: JobCreation): Job;
  /** Every job, newest first; narrowed to one state and/or to the jobs one conversation created. */
  list(filter?: { state?: JobState; createdIn?: ConversationKey }): Job[];
  /** Moves a job's next run (a missed one skipped), without reading the job back: the tick's hot path. */
  advance(id: string, nextRunAt: number | null): void;
  /** Scheduled jobs whose time has come (or whose expiry has), earliest first. */
  due(at: number, limit: number): Job[];
  /** When the scheduler must next look: the earliest next run or expiry of a scheduled job. */
  earliestWake(): number | undefined;
  /** Removes a job and its runs; refused (false) while a run is active. */
  remove(id: string): "removed" | "not_found" | "running";
}

/** The job_runs side: a run's row once it exists. */
export interface RunRows {
  getRun(id: string): JobRun | undefined;
  /** The run's agent loop begins: what it was given is kept as it was. */
  started(runId: string, snapshot: { prompt: string; config: Record<string, unknown> }): void;
  /** Delivery happens after the run settles; its outcome is recorded on the run, never lost. */
  delivered(runId: string, status: DeliveryStatus, error?: string): void;
  /** A job's runs, newest first. */
  runs(jobId: string, opts?: { status?: RunStatus; limit?: number }): JobRun[];
  /** Finished runs of the jobs a conversation created whose answers wait for its next turn (origin delivery). */
  pendingDeliveries(conversation: ConversationKey): Array<{ job: Job; run: JobRun }>;
  activeRuns(): JobRun[];
}

/** The writes that move a job and its run together, each in one transaction. */
export interface RunClaims {
  /**
   * Claims a job for one run, in one transaction: refused while it has a queued or running run, or when it
   * is not scheduled. `nextRunAt` is the job's next time after this run (null: a once job, consumed).
   */
  claim(input: { jobId: string; trigger: RunTrigger; nextRunAt: number | null }): Claim;
  /** Settles a run and releases its job in one write. */
  finish(runId: string, outcome: RunOutcome): JobRun | undefined;
  /**
   * Runs left queued or running by a daemon that stopped without settling them (killed, crashed): they are
   * marked failed with `reason` and their jobs released — never replayed.
   */
  reapInterrupted(reason: string, only?: readonly string[]): JobRun[];
}

/** Scheduled jobs and their runs in memory.db. */
export interface JobStore extends JobRows, RunRows, RunClaims {}

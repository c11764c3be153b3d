import type { Trust } from "../capabilities/caller.ts";
import { defineError } from "../error.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import { jobPayload, runPayload } from "./job-payload.ts";
import type { JobService } from "./job-service-contract.ts";
import type { Job, JobState, RunStatus } from "./job-types.ts";
import { nextRunAt, parseSchedule } from "./schedule.ts";

export const JobNotFound = defineError<{ job_id: string }>("job_not_found");
export const RunNotFound = defineError<{ run_id: string }>("run_not_found");
export const JobNotRunnable = defineError<{ job_id: string; state: string }>("job_not_runnable");
export const JobAlreadyRunning = defineError<{ job_id: string; run_id?: string }>("job_already_running");
export const JobExpired = defineError<{ job_id: string }>("job_expired");
export const JobScheduleInvalid = defineError<{ job_id: string }>("job_schedule_invalid");

/** Who is acting on jobs: the owner sees every job; a guest only the jobs it created in its own conversation. */
export type JobActor = { trust: Trust; conversation?: ConversationKey };

const sameConversation = (a: ConversationKey, b: ConversationKey) =>
  a.channel === b.channel && a.chat === b.chat && (a.thread ?? "") === (b.thread ?? "");

export function canSee(actor: JobActor, job: Job): boolean {
  if (actor.trust === "operator") return true;
  return job.createdByTrust === "guest" && !!actor.conversation && sameConversation(job.createdIn, actor.conversation);
}

/**
 * What pause, resume, remove and run-now do, for the tools, the daemon's routes and `fermix jobs` alike. Each
 * throws a FermixError whose sentence says what to do next; none touches a job the actor cannot see.
 */
export function jobOperations(service: Pick<JobService, "store" | "role" | "changed" | "runNow">, now: () => number) {
  const { store } = service;
  const find = (actor: JobActor, jobId: string): Job => {
    const job = store.get(jobId);
    if (!job || !canSee(actor, job)) {
      // A guest has no list_jobs to be pointed at.
      const hint = actor.trust === "operator" ? "; list_jobs shows the jobs" : "";
      throw JobNotFound(`Not found: there is no job "${jobId}"${hint}`, { job_id: jobId });
    }
    return job;
  };

  return {
    find,

    list(actor: JobActor, state?: JobState) {
      return store
        .list({ state, createdIn: actor.trust === "operator" ? undefined : actor.conversation })
        .filter((job) => canSee(actor, job))
        .map(jobPayload);
    },

    runs(actor: JobActor, jobId: string, opts: { status?: RunStatus; limit?: number } = {}) {
      find(actor, jobId);
      return store.runs(jobId, opts).map((run) => runPayload(run));
    },

    run(actor: JobActor, runId: string) {
      const run = store.getRun(runId);
      const job = run && store.get(run.jobId);
      if (!run || !job || !canSee(actor, job)) {
        throw RunNotFound(`Not found: there is no run "${runId}"; list_job_runs shows a job's runs`, { run_id: runId });
      }
      return runPayload(run, { full: true });
    },

    /** Stops the clock for one job; a run in flight finishes. The owner's pause, distinct from disabled. */
    pause(actor: JobActor, jobId: string) {
      const job = find(actor, jobId);
      if (job.state === "paused") return jobPayload(job);
      if (job.state !== "scheduled" && job.state !== "running") {
        throw JobNotRunnable(`job ${job.id} is ${job.state}; there is nothing to pause`, {
          job_id: job.id,
          state: job.state,
        });
      }
      const paused = store.update(job.id, { state: "paused" })!;
      service.changed();
      return jobPayload(paused);
    },

    /** Back on the clock from now: a paused job, or a disabled one whose schedule update_job has fixed. */
    resume(actor: JobActor, jobId: string) {
      const job = find(actor, jobId);
      if (job.state === "scheduled" || job.state === "running") return jobPayload(job);
      const at = now();
      if (job.expiresAt !== null && job.expiresAt <= at) {
        throw JobExpired(`Job expired: ${job.id}`, { job_id: job.id });
      }
      const parsed = parseSchedule(job.scheduleExpr, job.timezone);
      if (!parsed.ok) {
        store.update(job.id, { state: "disabled", lastError: parsed.error });
        throw JobScheduleInvalid(`${parsed.error}; fix it with update_job, then resume the job`, { job_id: job.id });
      }
      const next = nextRunAt(parsed.schedule, at);
      if (next === null) {
        throw JobScheduleInvalid(
          `job ${job.id} has no future run (${job.scheduleExpr}); give it a new schedule with update_job`,
          { job_id: job.id },
        );
      }
      const resumed = store.update(job.id, { state: "scheduled", nextRunAt: next, lastError: null })!;
      service.changed();
      return jobPayload(resumed);
    },

    remove(actor: JobActor, jobId: string) {
      const job = find(actor, jobId);
      const outcome = store.remove(job.id);
      if (outcome === "running") {
        throw JobAlreadyRunning(`job ${job.id} has a run in progress; pause it, or wait for the run to finish`, {
          job_id: job.id,
        });
      }
      service.changed();
      return { removed: true, job_id: job.id };
    },

    /**
     * Fires a job at once (trigger manual); its timed cadence is untouched and a once job is consumed. The daemon
     * answers when the run has started; a one-shot CLI has no daemon to leave it with, so it waits for the end.
     */
    async runNow(actor: JobActor, jobId: string) {
      const job = find(actor, jobId);
      if (job.expiresAt !== null && job.expiresAt <= now()) {
        throw JobExpired(`Job expired: ${job.id}`, { job_id: job.id });
      }
      const claim = service.runNow(job.id);
      if (!claim.ok) {
        if (claim.reason === "already_running") {
          const active = store.runs(job.id, { limit: 1 })[0];
          throw JobAlreadyRunning(`job ${job.id} is already running${active ? ` (run ${active.id})` : ""}`, {
            job_id: job.id,
            run_id: active?.id,
          });
        }
        if (claim.reason === "not_found") throw JobNotFound(`Not found: there is no job "${jobId}"`, { job_id: jobId });
        throw JobNotRunnable(`job ${job.id} is ${claim.job?.state ?? job.state}; resume it first`, {
          job_id: job.id,
          state: claim.job?.state ?? job.state,
        });
      }
      if (service.role === "oneshot") await claim.done;
      return runPayload(store.getRun(claim.run.id)!);
    },
  };
}

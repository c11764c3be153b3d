import type { JobStore } from "./job-store-contract.ts";
import type { Job, JobRun } from "./job-types.ts";
import { nextRunAt, parseSchedule } from "./schedule.ts";
import type { ManualRun, Scheduler } from "./scheduler-contract.ts";

/** Runs at once at most; a due job beyond this waits, `scheduled`, for a later tick — never dropped. */
export const MAX_CONCURRENT_RUNS = 4;
/** Due jobs looked at per tick. */
export const DUE_BATCH = 20;
/** The timer is never armed further out than this: a clock that jumps is caught within a day. */
export const MAX_TIMER_MS = 24 * 60 * 60 * 1000;
/** Runs left without a runner are looked for, and the timer re-armed from the database, this often. */
export const RECONCILE_MS = 60_000;
/** After a tick that hit the cap or a fault, the next one comes no sooner than this (never a 0 ms spin). */
export const RETRY_FLOOR_MS = 5_000;
/** Each new run waits this long per run already active before it starts (max STAGGER_MAX_MS). */
export const STAGGER_MS = 250;
export const STAGGER_MAX_MS = 5_000;

export const INTERRUPTED =
  "interrupted: the daemon stopped before this run finished (killed, crashed or restarted); runs are never replayed";

export type Timers = {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
};

export type SchedulerDeps = {
  store: JobStore;
  now: () => number;
  /** Runs one claimed job to its end and settles its run (the runner). */
  execute(job: Job, run: JobRun): Promise<void>;
  log: { info(msg: string): void; warn(msg: string): void };
  /** [fermix_core.jobs] run_freshness_window_seconds, in ms (default 1 h). */
  freshnessMs?: number | (() => number);
  timers?: Timers;
  sleep?: (ms: number) => Promise<void>;
  /** After each pass over the due jobs: how long it took and what it did (bench/scheduler measures this). */
  onPass?: (pass: { ms: number; looked: number; claimed: number }) => void;
};

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The daemon's job clock. No fixed tick: one timer is armed for the earliest due time (≤ 24 h) and re-armed on
 * every change; a reconciliation pass at start and every minute reaps runs that lost their runner and re-reads
 * the database (a one-shot CLI may have added a job). A due job is claimed with its run row in one transaction.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const timers = deps.timers ?? realTimers;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // Read at every tick (config.toml edits apply without a restart). Never under a minute: a timer fires a little
  // late, and a window of 0 would otherwise skip nearly every run.
  const freshnessMs = () =>
    Math.max(
      RECONCILE_MS,
      (typeof deps.freshnessMs === "function" ? deps.freshnessMs() : deps.freshnessMs) ?? 3_600_000,
    );
  const live = new Map<string, Promise<void>>();
  let timer: unknown;
  let reconcileTimer: unknown;
  let stopped = true;
  let ticking: Promise<void> | undefined;
  let again = false;

  function arm(floorMs = 0): void {
    if (stopped) return;
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
    const wake = deps.store.earliestWake();
    if (wake === undefined) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(floorMs, wake - deps.now(), 0));
    timer = timers.set(() => {
      timer = undefined;
      void tick();
    }, delay);
  }

  /** One pass over the due jobs; concurrent calls coalesce into one more pass after the current one. */
  function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        again = false;
        let floor = 0;
        try {
          floor = scan();
        } catch (err) {
          deps.log.warn(`scheduler tick failed: ${(err as Error).message}`);
          floor = RETRY_FLOOR_MS;
        }
        arm(floor);
      } while (again && !stopped);
    })().finally(() => {
      ticking = undefined;
    });
    return ticking;
  }

  // Parsing a cron expression costs more than the rest of a claim; a schedule is parsed once, not every tick.
  const parsedSchedules = new Map<string, ReturnType<typeof parseSchedule>>();
  function parsedSchedule(expr: string, timeZone: string): ReturnType<typeof parseSchedule> {
    const key = `${timeZone}\n${expr}`;
    let found = parsedSchedules.get(key);
    if (!found) {
      if (parsedSchedules.size >= 10_000) parsedSchedules.clear();
      found = parseSchedule(expr, timeZone);
      parsedSchedules.set(key, found);
    }
    return found;
  }

  /** Returns the floor for the next arm: RETRY_FLOOR_MS when a due job had to wait. */
  function scan(): number {
    const started = performance.now();
    const at = deps.now();
    let floor = 0;
    let claimed = 0;
    const due = deps.store.due(at, DUE_BATCH);
    for (const job of due) {
      if (job.expiresAt !== null && at >= job.expiresAt) {
        deps.store.update(job.id, { state: "completed", lastStatus: "expired", nextRunAt: null });
        deps.log.info(`job ${job.id} expired`);
        continue;
      }
      if (job.nextRunAt === null || job.nextRunAt > at) continue;
      const parsed = parsedSchedule(job.scheduleExpr, job.timezone);
      if (!parsed.ok) {
        // A corrupt row is terminal: retried forever it would only log the same error every tick.
        deps.store.update(job.id, { state: "disabled", lastError: parsed.error });
        deps.log.warn(`job ${job.id} disabled: ${parsed.error}`);
        continue;
      }
      const { schedule } = parsed;
      if (schedule.kind !== "once" && at - job.nextRunAt > freshnessMs()) {
        const next = nextRunAt(schedule, at);
        deps.store.advance(job.id, next);
        deps.log.info(
          `job ${job.id}: skipped the run due ${new Date(job.nextRunAt).toISOString()} (older than the freshness window); next ${next === null ? "none" : new Date(next).toISOString()}`,
        );
        continue;
      }
      if (live.size >= MAX_CONCURRENT_RUNS) {
        floor = RETRY_FLOOR_MS;
        break;
      }
      const claim = deps.store.claim({
        jobId: job.id,
        trigger: "schedule",
        nextRunAt: schedule.kind === "once" ? null : nextRunAt(schedule, at),
      });
      if (claim.ok) {
        claimed++;
        launch(claim.job, claim.run);
      } else floor = RETRY_FLOOR_MS;
    }
    deps.onPass?.({ ms: performance.now() - started, looked: due.length, claimed });
    return floor;
  }

  function launch(job: Job, run: JobRun): Promise<void> {
    const stagger = Math.min(STAGGER_MAX_MS, STAGGER_MS * live.size);
    const running = (async () => {
      if (stagger) await sleep(stagger);
      await deps.execute(job, run);
    })()
      .catch((err: unknown) => {
        // The runner settles its own runs; this is the net under it, so no run is left "running".
        deps.store.finish(run.id, {
          status: "error",
          error: `runner crashed: ${(err as Error)?.message ?? String(err)}`,
          deliveryStatus: "none",
        });
        deps.log.warn(`job ${job.id} run ${run.id}: runner crashed: ${(err as Error)?.message}`);
      })
      .finally(() => {
        live.delete(run.id);
        // A slot is free: a job that waited for it goes now.
        if (!stopped) void tick();
      });
    live.set(run.id, running);
    return running;
  }

  /** Reaps runs that are queued or running in the database but have no runner in this process. */
  function reconcile(): void {
    const orphans = deps.store.activeRuns().filter((run) => !live.has(run.id));
    if (orphans.length) {
      const reaped = deps.store.reapInterrupted(
        INTERRUPTED,
        orphans.map((r) => r.id),
      );
      for (const run of reaped) deps.log.warn(`job ${run.jobId}: run ${run.id} was interrupted; marked failed`);
    }
  }

  function reconcileLoop(): void {
    reconcileTimer = timers.set(() => {
      if (stopped) return;
      try {
        reconcile();
      } catch (err) {
        deps.log.warn(`job reconciliation failed: ${(err as Error).message}`);
      }
      void tick();
      reconcileLoop();
    }, RECONCILE_MS);
  }

  return {
    /** Reaps what a previous daemon left running, then starts the clock. */
    start(): Promise<void> {
      stopped = false;
      reconcile();
      reconcileLoop();
      return tick();
    },

    /** Stops arming; resolves once the runs in flight have settled (the caller aborts them first if it must). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      if (reconcileTimer !== undefined) timers.clear(reconcileTimer);
      timer = reconcileTimer = undefined;
      await Promise.allSettled([...live.values()]);
    },

    /** A job was created, edited, paused or resumed: look again at when to wake. */
    changed(): void {
      void tick();
    },

    /** Fires a job now, out of band (trigger manual): a recurring cadence is untouched, a once job consumed. */
    runNow(jobId: string): ManualRun {
      const job = deps.store.get(jobId);
      const next = job && job.scheduleKind === "once" ? null : (job?.nextRunAt ?? null);
      const claim = deps.store.claim({ jobId, trigger: "manual", nextRunAt: next });
      if (!claim.ok) return claim;
      return { ...claim, done: launch(claim.job, claim.run) };
    },

    /** Runs in flight in this process. */
    active(): number {
      return live.size;
    },

    /** Resolves once no run is in flight and no tick is under way (a slot freed starts another tick). */
    async idle(): Promise<void> {
      while (live.size || ticking) {
        await Promise.allSettled([...live.values()]);
        if (ticking) await ticking;
      }
    },

    tick,
  };
}

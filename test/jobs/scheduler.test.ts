import { describe, expect, test } from "bun:test";
import type { JobStore } from "../../src/jobs/job-store-contract.ts";
import type { Job, JobRun } from "../../src/jobs/job-types.ts";
import {
  createScheduler,
  INTERRUPTED,
  MAX_CONCURRENT_RUNS,
  MAX_TIMER_MS,
  type Timers,
} from "../../src/jobs/scheduler.ts";
import { draft, MINUTE, operatorCli, storeWithClock, T0 } from "./_fixture.ts";

/** Timers the test fires by hand: what was armed, and for how long. */
function manualTimers() {
  const armed = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: Timers = {
    set(fn, ms) {
      armed.set(next, { fn, ms });
      return next++;
    },
    clear(handle) {
      armed.delete(handle as number);
    },
  };
  return { timers, armed };
}

/** An execute() whose runs end when the test says, recording how many ran at once. */
function controlledRuns(store: JobStore) {
  const waiting: Array<{ job: Job; run: JobRun; finish(): void }> = [];
  let active = 0;
  let maxActive = 0;
  const started: string[] = [];
  const execute = (job: Job, run: JobRun) =>
    new Promise<void>((resolve) => {
      active++;
      maxActive = Math.max(maxActive, active);
      started.push(job.id);
      waiting.push({
        job,
        run,
        finish() {
          store.finish(run.id, { status: "ok", finalResponse: `done ${job.name}`, deliveryStatus: "none" });
          active--;
          resolve();
        },
      });
    });
  return { execute, waiting, started, maxActive: () => maxActive };
}

const quiet = { info() {}, warn() {} };
const instant = () => Promise.resolve();

function setup() {
  const s = storeWithClock();
  const { timers, armed } = manualTimers();
  const runs = controlledRuns(s.store);
  const logs: string[] = [];
  const scheduler = createScheduler({
    store: s.store,
    now: s.now,
    execute: runs.execute,
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
    timers,
    sleep: instant,
  });
  return { ...s, scheduler, runs, armed, logs };
}

/** Lets the promise chains of finished runs (and the ticks they start) settle. */
async function settle(scheduler: { tick(): Promise<void> }) {
  for (let i = 0; i < 5; i++) await scheduler.tick();
}

describe("scheduler", () => {
  test("a burst of 20 due jobs: all run, never more than 4 at once, the rest wait scheduled", async () => {
    const { store, scheduler, runs } = setup();
    const ids = Array.from(
      { length: 20 },
      (_, i) => store.create(draft({ name: `job ${i}` }), { ...operatorCli, nextRunAt: T0 - 1000 - i }).id,
    );
    await scheduler.start();
    expect(runs.started).toHaveLength(MAX_CONCURRENT_RUNS);
    expect(store.list({ state: "scheduled" })).toHaveLength(16);
    while (runs.waiting.length) {
      runs.waiting.shift()!.finish();
      await settle(scheduler);
    }
    expect(runs.maxActive()).toBe(MAX_CONCURRENT_RUNS);
    expect(new Set(runs.started)).toEqual(new Set(ids));
    expect(runs.started).toHaveLength(20);
    for (const id of ids) expect(store.runs(id).map((r) => r.status)).toEqual(["ok"]);
    await scheduler.stop();
  });

  test("a recurring run older than the freshness window is skipped and the schedule advances; a once job runs late", async () => {
    const { store, scheduler, runs, clock, logs } = setup();
    const stale = store.create(draft({ name: "hourly" }), { ...operatorCli, nextRunAt: T0 - 2 * 60 * MINUTE });
    const late = store.create(
      draft({ name: "once", scheduleKind: "once", scheduleExpr: new Date(T0 - 2 * 60 * MINUTE).toISOString() }),
      { ...operatorCli, nextRunAt: T0 - 2 * 60 * MINUTE },
    );
    await scheduler.start();
    expect(runs.started).toEqual([late.id]);
    const skipped = store.get(stale.id)!;
    expect(skipped.state).toBe("scheduled");
    expect(skipped.nextRunAt).toBe(clock.now + 15 * MINUTE);
    expect(skipped.lastStatus).toBeNull();
    expect(store.runs(stale.id)).toEqual([]);
    expect(logs.some((l) => l.includes(`job ${stale.id}: skipped the run due`))).toBe(true);
    runs.waiting.shift()!.finish();
    await settle(scheduler);
    expect(store.get(late.id)).toMatchObject({ state: "completed", lastStatus: "ok", nextRunAt: null });
    await scheduler.stop();
  });

  test("a due time inside the freshness window still runs", async () => {
    const { store, scheduler, runs } = setup();
    const job = store.create(draft(), { ...operatorCli, nextRunAt: T0 - 30 * MINUTE });
    await scheduler.start();
    expect(runs.started).toEqual([job.id]);
    // Interval: the next time counts from now, not from the missed slot.
    expect(store.get(job.id)!.nextRunAt).toBe(T0 + 15 * MINUTE);
    runs.waiting.shift()!.finish();
    await scheduler.stop();
  });

  test("a schedule that no longer parses disables the job with the parse error; it is not retried", async () => {
    const { store, scheduler, runs, db } = setup();
    const job = store.create(draft(), { ...operatorCli, nextRunAt: T0 - 1000 });
    db.exec(`UPDATE scheduled_jobs SET schedule_expr = '61 * * * *', schedule_kind = 'cron' WHERE id = '${job.id}'`);
    await scheduler.start();
    expect(runs.started).toEqual([]);
    const disabled = store.get(job.id)!;
    expect(disabled.state).toBe("disabled");
    expect(disabled.lastError).toContain("61");
    await scheduler.tick();
    expect(runs.started).toEqual([]);
    await scheduler.stop();
  });

  test("an unknown time zone in a stored row disables the job too", async () => {
    const { store, scheduler, db } = setup();
    const job = store.create(draft(), { ...operatorCli, nextRunAt: T0 - 1000 });
    db.exec(
      `UPDATE scheduled_jobs SET timezone = 'Mars/Olympus', schedule_kind = 'cron', schedule_expr = '0 8 * * *' WHERE id = '${job.id}'`,
    );
    await scheduler.start();
    expect(store.get(job.id)).toMatchObject({ state: "disabled" });
    expect(store.get(job.id)!.lastError).toContain("Mars/Olympus");
    await scheduler.stop();
  });

  test("expires_at: a job past its expiry completes as expired and never runs again", async () => {
    const { store, scheduler, runs, clock } = setup();
    const job = store.create(draft({ expiresAt: T0 + 10 * MINUTE }), { ...operatorCli, nextRunAt: T0 + 15 * MINUTE });
    await scheduler.start();
    clock.now = T0 + 11 * MINUTE;
    await scheduler.tick();
    expect(runs.started).toEqual([]);
    expect(store.get(job.id)).toMatchObject({ state: "completed", lastStatus: "expired", nextRunAt: null });
    clock.now = T0 + 20 * MINUTE;
    await scheduler.tick();
    expect(runs.started).toEqual([]);
    await scheduler.stop();
  });

  test("the timer is armed for the earliest due time or expiry, capped at 24 h, and re-armed on a change", async () => {
    const { store, scheduler, armed } = setup();
    store.create(draft({ name: "far" }), { ...operatorCli, nextRunAt: T0 + 3 * 24 * 60 * MINUTE });
    await scheduler.start();
    const delays = () => [...armed.values()].map((t) => t.ms).sort((a, b) => a - b);
    // The reconciliation timer (60 s) and the due timer, capped at a day.
    expect(delays()).toEqual([60_000, MAX_TIMER_MS]);
    store.create(draft({ name: "soon" }), { ...operatorCli, nextRunAt: T0 + 5 * MINUTE });
    scheduler.changed();
    await scheduler.tick();
    expect(delays()).toEqual([60_000, 5 * MINUTE]);
    await scheduler.stop();
    expect(armed.size).toBe(0);
  });

  test("runs a killed daemon left queued or running are marked interrupted at start, never replayed", async () => {
    const { store, scheduler, runs } = setup();
    const job = store.create(draft(), { ...operatorCli, nextRunAt: T0 + 15 * MINUTE });
    const claim = store.claim({ jobId: job.id, trigger: "schedule", nextRunAt: T0 + 15 * MINUTE });
    if (!claim.ok) throw new Error("claim failed");
    store.started(claim.run.id, { prompt: "SYSTEM:\n…", config: {} });
    await scheduler.start();
    expect(store.getRun(claim.run.id)).toMatchObject({ status: "error", error: INTERRUPTED });
    expect(store.get(job.id)).toMatchObject({ state: "scheduled", lastStatus: "error", lastError: INTERRUPTED });
    expect(runs.started).toEqual([]);
    await scheduler.stop();
  });

  test("run now: trigger manual, the cadence untouched; refused while a run is active", async () => {
    const { store, scheduler, runs } = setup();
    const job = store.create(draft(), { ...operatorCli, nextRunAt: T0 + 15 * MINUTE });
    const first = scheduler.runNow(job.id);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.run.trigger).toBe("manual");
    expect(store.get(job.id)!.nextRunAt).toBe(T0 + 15 * MINUTE);
    expect(scheduler.runNow(job.id)).toMatchObject({ ok: false, reason: "already_running" });
    runs.waiting.shift()!.finish();
    await first.done;
    expect(store.get(job.id)).toMatchObject({ state: "scheduled", lastStatus: "ok", nextRunAt: T0 + 15 * MINUTE });
    store.update(job.id, { state: "paused" });
    expect(scheduler.runNow(job.id)).toMatchObject({ ok: false, reason: "not_runnable" });
  });

  test("a runner that throws still settles its run, as an error", async () => {
    const s = storeWithClock();
    const scheduler = createScheduler({
      store: s.store,
      now: s.now,
      execute: () => Promise.reject(new Error("boom")),
      log: quiet,
      timers: manualTimers().timers,
      sleep: instant,
    });
    const job = s.store.create(draft(), { ...operatorCli, nextRunAt: T0 - 1000 });
    await scheduler.start();
    await scheduler.stop();
    expect(s.store.runs(job.id)[0]).toMatchObject({ status: "error", error: "runner crashed: boom" });
    expect(s.store.get(job.id)!.state).toBe("scheduled");
  });
});

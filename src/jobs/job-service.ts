import type { Config } from "../config/schema.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { type ChannelDeliveryDeps, deliverToChannel } from "./channel-delivery.ts";
import { createJobRunner, type JobRunnerDeps } from "./job-runner.ts";
import type { JobService } from "./job-service-contract.ts";
import { createJobStore } from "./job-store.ts";
import { createScheduler } from "./scheduler.ts";

export type JobServiceDeps = Pick<JobRunnerDeps, "turn" | "routes" | "skill" | "networkReady"> & {
  db: SqlDatabase;
  /** The daemon runs the clock; a one-shot CLI only stores jobs and runs one on request. */
  role: "daemon" | "oneshot";
  config: () => Config;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
  /** A one-shot CLI changed a job: a running daemon should look at its clock again. */
  notifyDaemon?: () => void;
  /** The running chat channel for a platform (the daemon's), for `origin` and `channel` delivery. */
  channel?: ChannelDeliveryDeps["channel"];
};

/** Jobs as the composition root wires them: the store, the runner and, in the daemon, the clock. */
export function createJobService(deps: JobServiceDeps): JobService {
  const store = createJobStore(deps.db, deps.now);
  const jobsConfig = () => deps.config().fermix_core?.jobs;
  const runner = createJobRunner({
    store,
    turn: deps.turn,
    routes: deps.routes,
    skill: deps.skill,
    networkReady: deps.networkReady,
    now: deps.now,
    log: deps.log,
    deliver: (job, _run, message) => deliverToChannel(job, message, { channel: deps.channel }),
  });
  const scheduler = createScheduler({
    store,
    now: deps.now,
    execute: runner.execute,
    log: deps.log,
    freshnessMs: () => (jobsConfig()?.run_freshness_window_seconds ?? 3600) * 1000,
  });
  return {
    store,
    role: deps.role,
    defaults: () => ({
      timezone: deps.config().fermix_core?.personalization?.timezone ?? "America/New_York",
      deliveryMode: jobsConfig()?.default_delivery ?? "none",
    }),
    checkRoute: (pin) => {
      try {
        deps.routes(pin);
        return undefined;
      } catch (err) {
        return (err as Error)?.message ?? String(err);
      }
    },
    start: () => scheduler.start(),
    stop: async () => {
      runner.abortAll();
      await scheduler.stop();
    },
    changed: () => (deps.role === "daemon" ? scheduler.changed() : deps.notifyDaemon?.()),
    runNow: (jobId) => scheduler.runNow(jobId),
  };
}

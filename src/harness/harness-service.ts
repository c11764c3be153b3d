import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import { newId } from "../ids.ts";
import type { ChannelDeliveryDeps } from "../jobs/channel-delivery.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { ActiveRun } from "./active-run.ts";
import type { CliDetector } from "./cli-detect-contract.ts";
import type { Sleep } from "./delivery-retry.ts";
import { vendorEnv } from "./harness-env.ts";
import type { HarnessService, StartRequest } from "./harness-service-contract.ts";
import { harnessSettings } from "./harness-settings.ts";
import { createHarnessStore } from "./harness-store.ts";
import { type HarnessRun, VENDOR_COMMAND, VENDOR_LABEL } from "./harness-types.ts";
import { createResultDelivery, type ResultDeliveryDeps } from "./result-delivery.ts";
import { resultMessage } from "./result-message.ts";
import { admitRun, refuse } from "./run-admission.ts";
import { followRun } from "./run-follower.ts";
import { startVendorProcess } from "./run-process.ts";

export type HarnessServiceDeps = {
  db: SqlDatabase;
  /** Only the daemon runs coding runs: a one-shot ask would end, and its run with it. */
  role: "daemon" | "oneshot";
  config: () => Config;
  env: Record<string, string | undefined>;
  /** FERMIX_HOME: each run keeps its files (last message, output schema) under harness/runs/<id>/. */
  home: string;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
  cli: CliDetector;
  /** The running chat channel for a platform, where results and milestones go. */
  channel?: ChannelDeliveryDeps["channel"];
  /** Jobs, for a run a scheduled job asked for: its result follows the job's delivery. */
  jobs?: () => Promise<JobService>;
  /** Least time between two milestones posted to a chat. */
  milestoneIntervalMs?: number;
  /** The waits between a result's delivery attempts (tests pass one that returns at once). */
  sleep?: Sleep;
  /** Delivery attempts and their back-off (result-delivery.ts has the defaults). */
  deliveryRetry?: ResultDeliveryDeps["retry"];
};

/**
 * Coding-harness runs: admission (run-admission.ts), the vendor process and its event stream (run-follower.ts),
 * and the result's delivery (result-delivery.ts), over the runs this process started.
 */
export function createHarnessService(deps: HarnessServiceDeps): HarnessService {
  const store = createHarnessStore(deps.db, deps.now);
  const active = new Map<string, ActiveRun>();
  // A daemon that was killed left its runs marked active; their processes were reaped at its start.
  if (deps.role === "daemon") {
    for (const run of store.interruptLeftovers("fermix stopped while the run was going; it was not resumed")) {
      deps.log.warn(`coding run ${run.id} was left running by a previous daemon: marked interrupted`);
    }
  }
  const delivery = createResultDelivery({
    store,
    channel: deps.channel,
    jobs: deps.jobs,
    now: deps.now,
    log: deps.log,
    sleep: deps.sleep,
    // [fermix_core.harness] delivery_max_attempts / _age_hours, read at each failure: an edit applies at once.
    retry: {
      attempts: () => harnessSettings(deps.config()).deliveryMaxAttempts,
      maxAgeMs: () => harnessSettings(deps.config()).deliveryMaxAgeHours * 3_600_000,
      ...deps.deliveryRetry,
    },
  });
  // Results a previous daemon had not managed to deliver are tried again (only a daemon has the chat channels).
  if (deps.role === "daemon") delivery.resume();
  const following = {
    store,
    settings: () => harnessSettings(deps.config()),
    log: deps.log,
    delivery,
    milestoneIntervalMs: deps.milestoneIntervalMs,
  };

  const start = (req: StartRequest): HarnessRun => {
    const { cli, locks } = admitRun(deps, active, req);
    const id = newId("hr", 6);
    const runDir = join(deps.home, "harness", "runs", id);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const args = req.args(runDir);
    const run = store.create({
      id,
      vendor: req.vendor,
      cwd: req.cwd,
      prompt: req.prompt,
      argv: [VENDOR_COMMAND[req.vendor], ...args],
      params: req.params,
      progress: req.progress,
      origin: req.origin,
      jobId: req.jobId,
      startedAt: deps.now(),
    });
    const entry: ActiveRun = { run, locks, done: Promise.resolve(run) };
    active.set(id, entry);
    try {
      entry.proc = startVendorProcess([cli, ...args], {
        cwd: req.cwd,
        env: vendorEnv(deps.env, req.vendor, deps.config()),
      });
    } catch (err) {
      active.delete(id);
      store.finish(id, {
        status: "failed",
        failureTag: "spawn_failed",
        error: `could not start ${cli}: ${(err as Error).message}`,
      });
      throw refuse(
        { tag: "cli_unavailable" },
        `${VENDOR_LABEL[req.vendor]} could not be started: ${(err as Error).message}`,
      );
    }
    store.running(id, entry.proc.pid);
    deps.log.info(`coding run ${id} (${req.vendor}) started in ${req.cwd}, pid ${entry.proc.pid}`);
    entry.done = followRun(following, entry, req, runDir).finally(() => active.delete(id));
    return store.get(id)!;
  };

  return {
    store,
    start,
    get: (id) => store.get(id),
    list: (filter) => store.list(filter),
    async cancel(id) {
      const entry = active.get(id);
      if (!entry) return store.get(id);
      if (!entry.stop) entry.stop = "cancelled";
      await entry.proc?.stop();
      return entry.done;
    },
    settled: async (id) => {
      await active.get(id)?.done;
      await delivery.settled(id);
      return store.get(id);
    },
    activeCount: () => active.size,
    takePending(conversation) {
      return store.pendingFor(conversation).map((run) => {
        store.delivered(run.id, "sent");
        return { run, message: resultMessage(run) };
      });
    },
    async stopAll() {
      const entries = [...active.values()];
      for (const entry of entries) entry.stop ??= "shutdown";
      await Promise.all(
        entries.map(async (e) => {
          await e.proc?.stop();
          await e.done.catch(() => undefined);
        }),
      );
      await delivery.stop();
    },
  };
}

import type { TurnInput, TurnResult } from "../agent/turn.ts";
import type { TurnOpening } from "../agent/turn-addition.ts";
import type { Caller } from "../capabilities/caller.ts";
import type { ChannelAdapter } from "../channels/channel.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { SecretDeps } from "../config/secrets.ts";
import type { Log } from "../observability/log.ts";
import { resolveRoutes } from "../providers/routes.ts";
import { cronRoutes } from "../providers/routing-config.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { SkillCatalog } from "../skills/catalog.ts";
import { defineSubsystem } from "../subsystem.ts";
import type { JobService } from "./job-service-contract.ts";
import { hasPendingDeliveries } from "./pending-deliveries.ts";

export type JobsDeps = {
  db: () => SqlDatabase;
  role: "daemon" | "oneshot";
  paths: FermixPaths;
  liveConfig: () => Config;
  env: Env;
  secrets: SecretDeps;
  now: () => number;
  log: Log;
  skills: SkillCatalog;
  /** A job's run as a turn, in its session's lane (the turn runner's). */
  jobTurn(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  /** The daemon's running channel for a platform (a one-shot CLI has none: a chat delivery there fails with why). */
  channel(platform: string): ChannelAdapter | undefined;
};

/**
 * Scheduled jobs load on first use: the daemon starts their clock at boot (runs a killed predecessor left running
 * are marked interrupted before anything fires, so the boot waits for it); an ask loads them only when a job tool
 * runs, or when a job's answer waits for its conversation.
 */
export const jobsSubsystem = defineSubsystem({
  name: "jobs",
  wanted: () => true,
  load: async (deps: JobsDeps): Promise<JobService> => {
    const log = deps.log.withTag("jobs");
    return (await import("./job-service.ts")).createJobService({
      db: deps.db(),
      role: deps.role,
      config: deps.liveConfig,
      now: deps.now,
      log,
      turn: deps.jobTurn,
      // As config.toml says now: a pinned provider+model alone, else the cron routing or the chain.
      routes: (pin) =>
        pin
          ? resolveRoutes(deps.liveConfig(), deps.env, deps.secrets, pin).slice(0, 1)
          : cronRoutes(deps.liveConfig(), deps.env, deps.secrets),
      skill: async (name) => {
        const found = (await deps.skills.load()).skills.find((s) => s.name === name);
        return found && { instructions: found.body, allowedTools: found.allowedTools };
      },
      notifyDaemon: () => void notifyDaemonOfJobs(deps.paths.socket),
      channel: (platform) => deps.channel(platform),
      networkReady: async (jobRoutes) => {
        if (deps.liveConfig().fermix_core?.jobs?.network_readiness_enabled === false || !jobRoutes[0]) return;
        const { waitForNetwork } = await import("./network-readiness.ts");
        await waitForNetwork(jobRoutes[0].target.baseUrl, { log: (m) => log.warn(m) });
      },
    });
  },
  start: (service) => service.start(),
  awaitStart: true,
  startFailed: (err, deps) => deps.log.withTag("jobs").error(`scheduled jobs are not running: ${err.message}`),
  stop: (service) => service.stop(),
  // Answers of jobs this conversation created (origin delivery), shown before its next turn; one indexed look
  // first, since most turns have none waiting. A conversation begun by this turn created no job yet.
  joinsTurn: (opening: TurnOpening, deps) =>
    !opening.job && !!opening.onNotice && !opening.newConversation && hasPendingDeliveries(deps.db()),
  turn: async (service, opening: TurnOpening) => {
    const { deliveryMessage } = await import("./job-runner.ts");
    for (const { job, run } of service.store.pendingDeliveries(opening.key)) {
      opening.onNotice?.(`fermix: job "${job.name}" (${run.id}, ${run.status}):\n${deliveryMessage(job, run)}`);
      service.store.delivered(run.id, "sent");
    }
    return undefined;
  },
});

/** A one-shot CLI created or changed a job: a running daemon re-reads its clock (best effort, bounded). */
async function notifyDaemonOfJobs(socket: string): Promise<void> {
  try {
    const { createDaemonClient } = await import("../protocol/client.ts");
    await createDaemonClient(socket).jobsChanged();
  } catch {
    // No daemon, or an old one: its minute-by-minute reconciliation finds the job anyway.
  }
}

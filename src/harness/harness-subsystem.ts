import type { TurnAddition, TurnOpening } from "../agent/turn-addition.ts";
import type { ChannelAdapter } from "../channels/channel.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { Log } from "../observability/log.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { defineSubsystem } from "../subsystem.ts";
import type { AppHarness } from "./app-harness.ts";
import { hasPendingHarnessResults } from "./pending-results.ts";

export type HarnessDeps = {
  db: () => SqlDatabase;
  role: "daemon" | "oneshot";
  liveConfig: () => Config;
  env: Env;
  paths: FermixPaths;
  now: () => number;
  log: Log;
  channel(platform: string): ChannelAdapter | undefined;
  jobs(): Promise<JobService>;
};

/**
 * Coding-harness runs. Nothing of the service loads for a turn until the owner approved it; a daemon loads it at
 * boot where it was ever approved, so the runs a killed predecessor left active are marked interrupted right away
 * (their processes were reaped at its start) and no reader sees them running.
 */
export const harnessSubsystem = defineSubsystem({
  name: "coding-harness",
  wanted: (deps: HarnessDeps) => deps.liveConfig().fermix_core?.harness?.approved === true,
  load: async (deps: HarnessDeps): Promise<AppHarness> =>
    (await import("./app-harness.ts")).createAppHarness({
      db: deps.db,
      role: deps.role,
      config: deps.liveConfig,
      env: deps.env,
      home: deps.paths.home,
      now: deps.now,
      log: deps.log.withTag("harness"),
      channel: (platform) => deps.channel(platform),
      jobs: deps.jobs,
    }),
  start: async (harness) => void (await harness.service()),
  startFailed: (err, deps) => deps.log.withTag("harness").warn(`coding harness: ${err.message}`),
  stop: (harness) => harness.stop(),
  // Its tools join operator turns once approved (src/harness/gate.ts); its waiting results are shown before a
  // conversation's next turn, like job answers. Neither approved nor any result waiting: its code stays unloaded.
  // A conversation begun by this turn started no run yet.
  joinsTurn: (opening: TurnOpening, deps, loaded) =>
    loaded ||
    opening.config.fermix_core?.harness?.approved === true ||
    (!opening.job && !!opening.onNotice && !opening.newConversation && hasPendingHarnessResults(deps.db())),
  turn: async (harness, opening: TurnOpening): Promise<TurnAddition | undefined> => {
    const tools = opening.caller.trust === "operator" ? await harness.tools(opening.config) : undefined;
    if (!opening.job) await harness.showPending(opening);
    return tools && { tools };
  },
});

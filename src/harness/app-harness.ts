import type { AnyTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import type { ChannelDeliveryDeps } from "../jobs/channel-delivery.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { createCliDetector } from "./cli-detect.ts";
import { offeredHarness } from "./gate.ts";
import type { HarnessServiceDeps } from "./harness-service.ts";
import type { HarnessService } from "./harness-service-contract.ts";
import { hasPendingHarnessResults } from "./pending-results.ts";

/** The service's deps as the composition root has them: the database opened on first use, the CLIs found here. */
export type AppHarnessDeps = Omit<HarnessServiceDeps, "db" | "cli" | "channel" | "jobs" | "milestoneIntervalMs"> & {
  db: () => SqlDatabase;
  channel: ChannelDeliveryDeps["channel"];
  jobs: () => Promise<JobService>;
};

export interface AppHarness {
  /** The service, loaded on first use. */
  service(): Promise<HarnessService>;
  /** The harness tools this config offers (undefined: none), as a live-tools getter. */
  tools(config: Config): Promise<(() => readonly AnyTool[]) | undefined>;
  /** Coding results waiting for this CLI conversation, shown before its next turn like job answers. */
  showPending(input: { key: ConversationKey; onNotice?: (text: string) => void }): Promise<void>;
  /** Ends this process's runs (recorded as interrupted). */
  stop(): Promise<void>;
}

/**
 * The coding harness as the composition root wires it. Nothing of it loads for a turn until the owner approved it;
 * then its tools join the turn's extra tools and the service starts on first use.
 */
export function createAppHarness(deps: AppHarnessDeps): AppHarness {
  const cli = createCliDetector(deps.env.PATH);
  let service: Promise<HarnessService> | undefined;
  const load = () =>
    (service ??= import("./harness-service.ts").then(({ createHarnessService }) =>
      createHarnessService({ ...deps, db: deps.db(), cli }),
    ));
  let toolSet: Promise<{ list: (offered: ReturnType<typeof offeredHarness>) => AnyTool[] }> | undefined;
  // One array per offer, so a turn sees the same list while nothing changes (joinTools compares arrays).
  let last: { key: string; tools: readonly AnyTool[] } | undefined;
  return {
    service: load,
    /** The harness tools this config offers (undefined: none), as a live-tools getter. */
    async tools(config: Config): Promise<(() => readonly AnyTool[]) | undefined> {
      const offered = offeredHarness(config, (vendor) => cli(vendor) !== null);
      if (!offered.history) return undefined;
      toolSet ??= import("../capabilities/builtins/coding-harness.ts").then((m) => {
        const tools = m.createHarnessTools({ service: load });
        return { list: (o: ReturnType<typeof offeredHarness>) => m.harnessToolList(tools, o) };
      });
      const { list } = await toolSet;
      const key = JSON.stringify(offered);
      if (last?.key !== key) last = { key, tools: list(offered) };
      const tools = last.tools;
      return () => tools;
    },
    /** Coding results waiting for this CLI conversation, shown before its next turn like job answers. */
    async showPending(input: { key: ConversationKey; onNotice?: (text: string) => void }): Promise<void> {
      if (!input.onNotice || !hasPendingHarnessResults(deps.db())) return;
      for (const { message } of (await load()).takePending(input.key)) input.onNotice(`fermix: ${message}`);
    },
    /** Ends this process's runs (recorded as interrupted). */
    async stop(): Promise<void> {
      if (service) await (await service).stopAll();
    },
  };
}

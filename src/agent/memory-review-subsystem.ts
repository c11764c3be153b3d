import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { reviewSettings } from "../memory/memory-settings.ts";
import type { Review } from "../memory/review-contract.ts";
import type { Log } from "../observability/log.ts";
import type { Observers } from "../observability/observers.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route } from "../providers/routes.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { defineSubsystem, type Subsystem } from "../subsystem.ts";
import type { TurnEvents } from "./turn-events.ts";

export type MemoryReviewDeps = {
  db: () => SqlDatabase;
  config: Config;
  paths: FermixPaths;
  routes: () => Route[];
  router: RouterDeps;
  now: () => number;
};

/** The memory review runner (`fermix memory review --now`, revisions, restore), one per process, loaded on use. */
export const memoryReviewSubsystem = defineSubsystem({
  name: "memory-review",
  wanted: (deps: MemoryReviewDeps) => deps.config.fermix_core?.memory?.review_enabled !== false,
  load: async (deps: MemoryReviewDeps): Promise<Review> => {
    const { createReviewRunner } = await import("./memory-review.ts");
    return createReviewRunner({
      db: deps.db(),
      routes: () => deps.routes(),
      router: deps.router,
      now: deps.now,
      paths: { userMd: deps.paths.promptFiles.user, memoryMd: deps.paths.promptFiles.memory },
      settings: reviewSettings(deps.config.fermix_core?.memory),
    });
  },
});

/**
 * The daemon consolidates memories on its ~24 h gate after a turn, in the background; a one-shot CLI ask never
 * loads or waits for that.
 */
export function reviewAfterTurns(events: Observers<TurnEvents>, review: Subsystem<Review>, log: Log): void {
  if (!review.wanted()) return;
  events.on("turn_finished", () => {
    void review
      .api()
      .then((runner) => runner.maybeRun())
      .then((r) => {
        if (r.status === "failed") log.warn(`memory review failed: ${r.error}`);
      });
  });
}

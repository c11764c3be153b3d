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

/** However far off the review's next time is, the gate is asked again after this long (see reviewAfterTurns). */
export const GATE_RECHECK_MS = 60_000;

/**
 * The daemon consolidates memories on its ~24 h gate after a turn, in the background; a one-shot CLI ask never
 * loads or waits for that. The gate is a write transaction (BEGIN IMMEDIATE, so a daemon and a CLI sharing memory.db
 * do not both run a due review): asked after every turn it took the write lock once per turn, 200 times for 200
 * concurrent asks (issue 31). The time it answers with is kept instead, and turns before it skip the gate. It is
 * asked again at least every GATE_RECHECK_MS all the same, because another process may move it: a CLI's
 * `fermix memory review --now` that failed asks for a retry within the hour.
 */
export function reviewAfterTurns(
  events: Observers<TurnEvents>,
  review: Subsystem<Review>,
  log: Log,
  now: () => number = Date.now,
): void {
  if (!review.wanted()) return;
  let quietUntil = Number.NEGATIVE_INFINITY;
  events.on("turn_finished", () => {
    const asked = now();
    if (asked < quietUntil) return;
    // Taken now, so the turns that finish while this one's gate is being asked do not ask it again.
    quietUntil = asked + GATE_RECHECK_MS;
    void review
      .api()
      .then((runner) => runner.maybeRun())
      .then((r) => {
        if (r.status === "failed") log.warn(`memory review failed: ${r.error}`);
        // A review that ran or is running set the gate a full interval ahead; one that was skipped or failed says when.
        if (r.status !== "done" && r.nextAt !== undefined) quietUntil = Math.min(r.nextAt, asked + GATE_RECHECK_MS);
      });
  });
}

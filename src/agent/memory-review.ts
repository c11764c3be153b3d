import { createReview, type ReviewDeps } from "../memory/review.ts";
import type { Review, ReviewReport } from "../memory/review-contract.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route } from "../providers/routes.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { housekeepingScope, scopedRouter } from "../usage/meter.ts";
import { completeOnce } from "./complete.ts";

export type ReviewRunnerDeps = {
  db: SqlDatabase;
  /** The routes, or a function giving them at call time (so config and keys are read only when a review runs). */
  routes: Route[] | (() => Route[]);
  router: RouterDeps;
  paths: { userMd: string; memoryMd: string };
  now?: () => number;
  signal?: AbortSignal;
  /** [fermix_core.memory]'s schedule and limits (memory-settings.ts reviewSettings). */
  settings?: ReviewDeps["settings"];
};

/**
 * The memory review wired to the configured model: the same routes and failover as a turn, one call
 * without tools. A provider failure becomes a thrown error, which the review reports and retries later.
 */
export function createReviewRunner(deps: ReviewRunnerDeps): Review {
  return createReview({
    db: deps.db,
    now: deps.now ?? Date.now,
    paths: deps.paths,
    settings: deps.settings,
    async complete(system, prompt) {
      const result = await completeOnce({
        routes: typeof deps.routes === "function" ? deps.routes() : deps.routes,
        router: scopedRouter(deps.router, housekeepingScope("memory_review", "memory-review")),
        system,
        messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
        signal: deps.signal,
      });
      if (!result.ok) throw new Error(`${result.failure.provider}: ${result.failure.message}`);
      return result.text;
    },
  });
}

/** `fermix memory review --now`, and the daemon's own trigger once it has these parts at hand. */
export function reviewNow(deps: ReviewRunnerDeps): Promise<ReviewReport> {
  return createReviewRunner(deps).runNow();
}

import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/**
 * [fermix_core.memory]: the background review's schedule and limits. Absent keys keep the compiled defaults
 * (memory/review.ts), so an install without the table behaves as before.
 */
export const MemorySettings = lazySchema(() =>
  v.strictObject({
    /** The review after turns ("dreaming"); false leaves it to `fermix memory review --now`. */
    review_enabled: v.optional(v.boolean()),
    review_interval_hours: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"), v.maxValue(24 * 365))),
    review_retry_minutes: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"), v.maxValue(7 * 24 * 60))),
    review_max_changes: v.optional(v.pipe(v.number(), v.integer("a whole number"), v.minValue(1), v.maxValue(5000))),
  }),
);
export type MemorySettings = v.InferOutput<typeof MemorySettings>;

import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** [fermix_core.jobs]: scheduled jobs' catch-up window, network wait and where their results go by default. */
export const JobsSection = lazySchema(() =>
  v.strictObject({
    run_freshness_window_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    network_readiness_enabled: v.optional(v.boolean()),
    default_delivery: v.optional(v.picklist(["none", "local", "origin", "channel"])),
  }),
);

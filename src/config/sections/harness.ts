import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/**
 * [fermix_core.harness]: delegating repo work to the owner's Codex / Claude Code CLI. No harness tool is offered
 * until `approved` (the one-time consent of Setup → Coding Agents); `default_vendor` narrows the run tools to one.
 */
export const HARNESS_VENDORS = ["codex", "claude"] as const;
const Count = lazySchema(() => v.pipe(v.number(), v.integer("a whole number"), v.minValue(1, "1 or more")));
export const HarnessSection = lazySchema(() =>
  v.strictObject({
    enabled: v.optional(v.boolean()),
    approved: v.optional(v.boolean()),
    cloud_enabled: v.optional(v.boolean()),
    default_vendor: v.optional(v.picklist(HARNESS_VENDORS, '"codex" or "claude"')),
    max_active: v.optional(Count),
    default_timeout_minutes: v.optional(Count),
    inactivity_minutes: v.optional(Count),
    prompt_argv_max_kb: v.optional(Count),
    max_event_bytes: v.optional(Count),
    max_framing_errors: v.optional(Count),
    max_run_artifact_mb: v.optional(Count),
    artifact_quota_gb: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"))),
    min_free_gb: v.optional(v.pipe(v.number(), v.minValue(0, "0 or more"))),
    artifact_retention_days: v.optional(Count),
    delivery_max_attempts: v.optional(Count),
    delivery_max_age_hours: v.optional(Count),
    codex_home: v.optional(v.pipe(v.string(), v.minLength(1))),
    claude_config_dir: v.optional(v.pipe(v.string(), v.minLength(1))),
  }),
);

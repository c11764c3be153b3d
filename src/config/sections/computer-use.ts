import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

const Count = lazySchema(() => v.pipe(v.number(), v.integer("a whole number"), v.minValue(1, "1 or more")));
const Pixels = lazySchema(() =>
  v.pipe(
    v.number(),
    v.integer("a whole number of pixels"),
    v.minValue(320, "320 to 1366"),
    v.maxValue(1366, "320 to 1366"),
  ),
);
const Names = lazySchema(() => v.array(v.pipe(v.string(), v.minLength(1, "a non-empty name"))));

/**
 * [fermix_core.computer_use]: driving the desktop by screenshot, mouse and keyboard (experimental, off by default).
 * The keys and ranges are the facts'; computer-use/settings.ts fills in the defaults. Every message here is a range
 * or a choice, so with the table and key the loader prefixes it reads as the fix ("display_width_px: expected 320
 * to 1366, got 4000").
 */
export const ComputerUseSection = lazySchema(() =>
  v.strictObject({
    enabled: v.optional(v.boolean()),
    mode: v.optional(v.picklist(["browser", "host"], '"browser" or "host"')),
    display: v.optional(v.pipe(v.number(), v.integer("a display number"), v.minValue(0, "0 or more"))),
    display_width_px: v.optional(Pixels),
    display_height_px: v.optional(Pixels),
    allowed_apps: v.optional(Names),
    allowed_domains: v.optional(Names),
    confirm_consequential: v.optional(v.boolean()),
    screenshot_after: v.optional(v.boolean()),
    max_actions: v.optional(Count),
    max_retained_screenshots: v.optional(Count),
    approval_timeout_ms: v.optional(Count),
  }),
);

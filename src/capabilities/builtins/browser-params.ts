import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

// The browser tool's arguments: its declaration (browser.ts) and its run (browser-run.ts, loaded on the first
// call) share them (issue 31: boot RSS and the one-shot ask's import).

/** A wait's bound (act wait, timeout_ms), 120 s at most. */
export const MAX_WAIT_MS = 120_000;
/** How deep a snapshot may go when the model asks for more than the default (browser/snapshot.ts). */
const SNAPSHOT_MAX_DEPTH = 20;

const ACTIONS = [
  "status",
  "start",
  "stop",
  "open",
  "navigate",
  "snapshot",
  "tabs",
  "focus",
  "close",
  "screenshot",
  "act",
  "console",
  "dialog",
  "pdf",
  "download",
] as const;
export const KINDS = ["click", "fill", "type", "submit", "press", "hover", "get", "wait", "click_coords"] as const;
export const FIELDS = ["url", "title", "html", "text", "count", "ready_state", "rect"] as const;

export const Args = lazySchema(() =>
  v.object({
    action: v.picklist(ACTIONS, `one of ${ACTIONS.join(", ")}`),
    url: v.optional(v.pipe(v.string(), v.maxLength(4096))),
    target: v.optional(v.pipe(v.string(), v.regex(/^t\d+$/, 'a tab id from "tabs", such as t1'))),
    ref: v.optional(v.pipe(v.string(), v.regex(/^e\d+$/, "a ref from the latest snapshot, such as e7"))),
    selector: v.optional(v.pipe(v.string(), v.maxLength(1000))),
    kind: v.optional(v.picklist(KINDS, `one of ${KINDS.join(", ")}`)),
    text: v.optional(v.pipe(v.string(), v.maxLength(100_000))),
    key: v.optional(v.pipe(v.string(), v.maxLength(50))),
    field: v.optional(v.picklist(FIELDS, `one of ${FIELDS.join(", ")}`)),
    decision: v.optional(v.picklist(["accept", "dismiss"])),
    x: v.optional(v.pipe(v.number(), v.minValue(0))),
    y: v.optional(v.pipe(v.number(), v.minValue(0))),
    full_page: v.optional(v.boolean()),
    format: v.optional(v.picklist(["png", "jpeg"])),
    quality: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
    interactive: v.optional(v.boolean()),
    depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SNAPSHOT_MAX_DEPTH))),
    path: v.optional(v.pipe(v.string(), v.maxLength(4096))),
    wait_until: v.optional(v.picklist(["load", "domcontentloaded", "networkidle"])),
    timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(MAX_WAIT_MS))),
  }),
);
export type Args = v.InferOutput<typeof Args>;

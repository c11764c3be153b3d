import * as v from "valibot";
import type { ActionApprovals } from "../../computer-use/action-approvals.ts";
import type { DesktopDriver } from "../../computer-use/driver-contract.ts";
import type { ComputerUseSessions } from "../../computer-use/session.ts";
import type { ComputerUseSettings } from "../../computer-use/settings.ts";
import type { Resolver } from "../../net/types.ts";
import type { ToolContext } from "../tool.ts";

// computer_use's arguments and what the tool is made from: shared by its declaration (computer-use.ts) and its
// run (computer-use-run.ts), which loads on the first call (issue 31: boot RSS and the one-shot ask's import).

const ACTIONS = [
  "screenshot",
  "left_click",
  "right_click",
  "middle_click",
  "double_click",
  "mouse_move",
  "left_click_drag",
  "scroll",
  "type",
  "key",
  "wait",
  "zoom",
] as const;
export type Action = (typeof ACTIONS)[number];
const MAX_WAIT_S = 10;

const Point = v.tuple([v.number(), v.number()]);
export const Parameters = v.object({
  action: v.picklist(ACTIONS, `one of ${ACTIONS.join(", ")}`),
  coordinate: v.optional(Point),
  /** left_click_drag's start; its end is `coordinate`. */
  start_coordinate: v.optional(Point),
  /** Which picture `coordinate` is read on, after a zoom (see _computer-grid.ts). */
  grid: v.optional(v.picklist(["screen", "zoom"], '"screen" or "zoom"')),
  text: v.optional(v.string()),
  scroll_direction: v.optional(v.picklist(["up", "down", "left", "right"], "up, down, left or right")),
  scroll_amount: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30)), 3),
  region: v.optional(v.tuple([v.number(), v.number(), v.number(), v.number()])),
  duration: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(MAX_WAIT_S)), 1),
});
export type Args = v.InferOutput<typeof Parameters>;

export type ComputerUseToolDeps = {
  /** The X display (host mode), or how a call reaches the browser tool's current page (browser mode). */
  driver: DesktopDriver | ((ctx: ToolContext) => Promise<DesktopDriver>);
  settings: ComputerUseSettings;
  sessions: ComputerUseSessions;
  approvals: ActionApprovals;
  sleep?: (ms: number) => Promise<void>;
  /** DNS for browser mode's address floor (tests hand in fixed answers); absent: the system's. */
  resolve?: Resolver;
};

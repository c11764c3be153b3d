import { isFermixError } from "../../error.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import { type Args, type ComputerUseToolDeps, Parameters } from "./computer-use-params.ts";

export type { ComputerUseToolDeps } from "./computer-use-params.ts";

/**
 * The computer_use tool (spec: self-knowledge.md, "Computer use"), made for one turn: the last picture it showed
 * (the grid the model's coordinates are read on) is this turn's. Offered only to an attended operator turn while
 * [fermix_core.computer_use] is enabled and the display is ready (computer-use/computer-use-subsystem.ts). What it
 * does (computer-use-run.ts) loads on its first call, not with the tool: a turn that never looks at the screen,
 * and an idle daemon, carry only this declaration (issue 31: boot RSS and the one-shot ask's import).
 */
export function createComputerUseTool(deps: ComputerUseToolDeps) {
  const { settings } = deps;
  const browserMode = settings.mode === "browser";
  let run: ((args: Args, ctx: ToolContext) => Promise<ToolResult>) | undefined;

  return defineTool({
    name: "computer_use",
    description:
      "See the screen and work the mouse and keyboard: screenshot, click, type, key, scroll, drag, zoom, wait.",
    policy: "exec",
    readOnly: false,
    attendedOperatorOnly: true,
    // A paused task or an approval may wait for the owner far longer than a tool's usual two minutes.
    timeoutMs: 24 * 3600_000,
    parameters: Parameters,
    help:
      (browserMode
        ? "Browser mode: the screen is the browser tool's current tab (opened when there is none), and input " +
          "goes to that page only. "
        : "") +
      `Coordinates are [x, y] on the screenshot's ${settings.width}×${settings.height} grid, converted to the real ` +
      "screen. After a zoom (region [x1, y1, x2, y2] on the screen grid) the picture is the crop: a point inside " +
      'it is ambiguous and refused unless you pass grid: "screen" or grid: "zoom"; a new screenshot resets this. ' +
      "type takes text; key takes a combination in xdotool spelling (ctrl+l, Return). " +
      `At most ${settings.maxActions} actions a turn. The sandbox posture decides input: strict allows screenshot, ` +
      "zoom and wait only. Typing into a terminal or clicking send/pay/delete-like windows asks the owner first. " +
      "The owner can /pause (the next action waits) and /resume.",
    async execute(args, ctx): Promise<ToolResult> {
      try {
        run ??= (await import("./computer-use-run.ts")).computerUseRun(deps);
        return await run(args, ctx);
      } catch (err) {
        // A refusal or a conversion error is the model's to read and correct; anything else is a failure.
        if (isFermixError(err)) return { isError: true, content: err.message, trace: { action: args.action } };
        throw err;
      }
    },
  });
}

import { computerUseState, describeComputerUse } from "../computer-use/computer-use-state.ts";
import { defineCheck, skippedForConfig } from "./check.ts";

const ID = "computer-use";
const TITLE = "computer use";

/**
 * Computer use (spec: self-knowledge.md, "Computer use"): "off" while [fermix_core.computer_use] enabled is not
 * true; otherwise whether this machine's X display can be driven right now (DISPLAY set and reachable, X not
 * Wayland-only, XTest present, Linux), with the one thing to do when it cannot. Not ready is a warning, not a
 * failure: the daemon runs fine without it, it only offers no computer_use tool.
 */
export const computerUseCheck = defineCheck({
  id: ID,
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig(ID, TITLE)];
    const state = await computerUseState(ctx.config, {
      env: ctx.env,
      platform: ctx.platform,
      ...(ctx.openDesktop ? { open: ctx.openDesktop } : {}),
    });
    const detail = describeComputerUse(state);
    if (state.state !== "unavailable") return [{ id: ID, title: TITLE, status: "ok", detail }];
    return [{ id: ID, title: TITLE, status: "warn", detail: `not ready: ${detail}`, fix: state.fix }];
  },
});

import type { TurnAddition, TurnOpening } from "../agent/turn-addition.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { defineSubsystem } from "../subsystem.ts";
import type { ComputerUse } from "./computer-use.ts";

export type ComputerUseDeps = {
  liveConfig: () => Config;
  env: Env;
  log: Log;
};

/**
 * Computer use (issue 29): while [fermix_core.computer_use] enabled is true, the daemon opens the display at boot
 * (in the background: an unreachable X server never holds up the start) and offers computer_use to attended
 * operator turns once it is open. In mode "browser" there is no display to open: the tool works the browser
 * tool's page (browser-driver.ts) and is offered while a Chromium is found. Never to a guest, a job, a sub-agent or an unattended run: the tool is
 * attendedOperatorOnly, and sub-agents never inherit it (agent/subagents.ts).
 */
export const computerUseSubsystem = defineSubsystem({
  name: "computer-use",
  wanted: (deps: ComputerUseDeps) => deps.liveConfig().fermix_core?.computer_use?.enabled === true,
  // Its code (the display, the drivers, the PNG codec) loads with the part: never while it is off.
  load: async (deps: ComputerUseDeps): Promise<ComputerUse> =>
    (await import("./computer-use.ts")).createComputerUse({
      config: deps.liveConfig,
      env: deps.env,
      log: deps.log.withTag("computer-use"),
    }),
  start: async (computerUse) => void (await computerUse.open()),
  stop: (computerUse) => computerUse.close(),
  status: (computerUse) => computerUse.status(),
  joinsTurn: (opening: TurnOpening, deps) =>
    deps.liveConfig().fermix_core?.computer_use?.enabled === true && offeredTo(opening),
  turn: async (computerUse, opening: TurnOpening): Promise<TurnAddition | undefined> => {
    const tool = await computerUse.toolFor(opening.config);
    if (!tool) return undefined;
    const tools = [tool];
    return { tools: () => tools };
  },
  turnError: (err, deps) => deps.log.withTag("computer-use").warn(`computer use: ${err.message}`),
});

/** The owner in person, in a turn somebody waits on: not a guest, not a scheduled job, not an unattended run. */
function offeredTo(opening: TurnOpening): boolean {
  return opening.caller.trust === "operator" && opening.caller.attended && !opening.job && !opening.caller.jobId;
}

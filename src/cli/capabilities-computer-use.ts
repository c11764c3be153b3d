import { createComputerUseTool } from "../capabilities/builtins/computer-use.ts";
import { createActionApprovals } from "../computer-use/action-approvals.ts";
import { computerUseState, describeComputerUse } from "../computer-use/computer-use-state.ts";
import type { DesktopDriver } from "../computer-use/driver-contract.ts";
import { createComputerUseSessions } from "../computer-use/session.ts";
import { computerUseSettings } from "../computer-use/settings.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";

/**
 * The computer_use tool as listings see it (its name, description, policy, arguments): a turn makes its own with the
 * open display, so there is none in the built-in registry. Built on a desktop that is never touched.
 */
export function computerUseListing(config?: Config) {
  const untouched = () => Promise.reject(new Error("listing only"));
  const settings = computerUseSettings(config);
  const driver: DesktopDriver = {
    width: settings.width,
    height: settings.height,
    capture: untouched,
    moveMouse: untouched,
    click: untouched,
    drag: untouched,
    scroll: untouched,
    typeText: untouched,
    pressKeys: untouched,
    windowAt: untouched,
    close: async () => {},
  };
  return createComputerUseTool({
    driver,
    settings,
    sessions: createComputerUseSessions(),
    approvals: createActionApprovals(),
  });
}

/**
 * `fermix capabilities`' computer_use row, listed whether or not it is on because its state is the point: "off",
 * "ready (display :N, W×H screen)", or why this machine cannot be driven — the same words as `fermix doctor`. A turn
 * is offered the tool only when the state is ready (and only to the owner in person).
 */
export async function computerUseRows(config: Config, env: Env) {
  const tool = computerUseListing(config);
  const state = await computerUseState(config, { env });
  const why = describeComputerUse(state);
  return [
    {
      name: tool.name,
      kind: "builtin" as const,
      description: tool.description,
      policy: tool.policy,
      read_only: tool.readOnly,
      state: state.state === "unavailable" ? `not ready: ${why}` : why,
    },
  ];
}

import { findBrowser } from "../browser/find-browser.ts";
import { createComputerUseTool } from "../capabilities/builtins/computer-use.ts";
import type { AnyTool, ToolContext } from "../capabilities/tool.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import type { SubsystemStatus } from "../subsystem.ts";
import { type ActionApprovals, createActionApprovals } from "./action-approvals.ts";
import { openBrowserDriver, sessionOf } from "./browser-driver.ts";
import type { DesktopDriver, OpenDriver } from "./driver-contract.ts";
import { type ComputerUseSessions, createComputerUseSessions } from "./session.ts";
import { computerUseSettings } from "./settings.ts";

/** How long a turn waits, at most, for a display that is still opening: the tool is then left out, not waited on. */
export const OPEN_WAIT_MS = 5_000;

export type ComputerUseDriverState =
  | { state: "opening" }
  | { state: "ready"; display: string; driver: DesktopDriver }
  | { state: "unavailable"; reason: string };

/** Browser mode's readiness: no driver is held, a call reaches the browser tool's page (browser-driver.ts). */
type BrowserModeState = { state: "ready"; display: string } | { state: "unavailable"; reason: string };

/** The running part: the display, and what /pause, /resume, /confirm and /deny reach. */
export type ComputerUse = {
  sessions: ComputerUseSessions;
  approvals: ActionApprovals;
  /** Opens the display once (later calls share it); never throws, the state says why not. Browser mode: checks. */
  open(): Promise<ComputerUseDriverState | BrowserModeState>;
  /** The tool for a turn with this config, or undefined while the display is not ready (waits ≤ OPEN_WAIT_MS). */
  toolFor(config: Config): Promise<AnyTool | undefined>;
  status(): Omit<SubsystemStatus, "name">;
  close(): Promise<void>;
};

export function createComputerUse(deps: {
  config: () => Config;
  env: Env;
  log: Log;
  /** The driver to open (tests hand in a fake); absent: this build's X11 driver. */
  openDriver?: OpenDriver;
  platform?: string;
}): ComputerUse {
  const sessions = createComputerUseSessions();
  const approvals = createActionApprovals();
  let state: ComputerUseDriverState = { state: "opening" };
  let opening: Promise<ComputerUseDriverState> | undefined;

  const openDisplay = (): Promise<ComputerUseDriverState> => {
    opening ??= (async (): Promise<ComputerUseDriverState> => {
      const display = computerUseSettings(deps.config()).display ?? deps.env.DISPLAY;
      if ((deps.platform ?? process.platform) !== "linux") {
        state = { state: "unavailable", reason: "computer use drives an X display, and this is not Linux" };
      } else if (!display) {
        state = { state: "unavailable", reason: "no DISPLAY: set [fermix_core.computer_use] display or $DISPLAY" };
      } else {
        try {
          const openDriver = deps.openDriver ?? (await import("./x11/driver.ts")).openX11Driver;
          state = { state: "ready", display, driver: await openDriver(display) };
          deps.log.info(`computer use: display ${display} is ready`);
        } catch (err) {
          state = { state: "unavailable", reason: (err as Error).message };
        }
      }
      if (state.state === "unavailable") deps.log.warn(`computer use is not ready: ${state.reason}`);
      return state;
    })();
    return opening;
  };

  const open = async (): Promise<ComputerUseDriverState | BrowserModeState> => {
    if (computerUseSettings(deps.config()).mode !== "browser") return openDisplay();
    const now = browserState(deps.config());
    if (now.state === "unavailable") deps.log.warn(`computer use is not ready: ${now.reason}`);
    return now;
  };

  return {
    sessions,
    approvals,
    open,
    async toolFor(config) {
      const settings = computerUseSettings(config);
      if (!settings.enabled) return undefined;
      if (settings.mode === "browser") {
        if (browserState(config).state !== "ready") return undefined;
        const driver = (ctx: ToolContext) => openBrowserDriver(sessionOf(ctx.browser));
        return createComputerUseTool({ driver, settings, sessions, approvals });
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), OPEN_WAIT_MS);
      });
      const now = await Promise.race([openDisplay(), late]).finally(() => clearTimeout(timer));
      if (now?.state !== "ready") return undefined;
      return createComputerUseTool({ driver: now.driver, settings, sessions, approvals });
    },
    status() {
      if (computerUseSettings(deps.config()).mode === "browser") {
        const now = browserState(deps.config());
        return now.state === "ready"
          ? { state: "running", detail: now.display }
          : { state: "degraded", detail: now.reason };
      }
      if (state.state === "ready") return { state: "running", detail: `display ${state.display}` };
      if (state.state === "opening") return { state: "starting" };
      return { state: "degraded", detail: state.reason };
    },
    async close() {
      if (state.state === "ready") await state.driver.close();
    },
  };
}

/**
 * Browser mode needs no display, only a Chromium for the browser tool's session: asked again on every turn (a file
 * lookup), so a mode switched in config.toml applies to the next turn without opening or holding an X connection.
 */
function browserState(config: Config): BrowserModeState {
  const found = findBrowser(config.fermix_core?.tools?.browser?.executable);
  return found.ok
    ? { state: "ready", display: "browser mode (the browser tool's page)" }
    : { state: "unavailable", reason: found.reason };
}
